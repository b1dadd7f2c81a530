import type { Request, RequestHandler } from 'express';
import type { RpcMethod, RpcRequest } from '@feedback/contracts';
import type { RpcClient } from '@feedback/messaging';

/**
 * Most dashboard routes are one authority command: build its request from the HTTP request
 * (the acting member always comes from the session, never from the body), call it, answer.
 * The command's contract validates the request, so a bad body is a 400 naming the field.
 */
export function dashboardCommand<M extends RpcMethod>(
  context: { rpc: RpcClient; dashboardTimeoutMs: number },
  method: M,
  buildRequest: (request: Request) => RpcRequest<M>,
  successStatus = 200,
): RequestHandler {
  return async (request, response) => {
    const result = await context.rpc.call(method, buildRequest(request), { timeoutMs: context.dashboardTimeoutMs });
    if (successStatus === 204) response.status(204).end();
    else response.status(successStatus).json(result);
  };
}

/** The signed-in member as the authority's `actor`. */
export const actorOf = (request: Request) => ({ member_id: request.member!.member_id, team_id: request.member!.team_id });

/** The JSON body as an object (an absent body is an empty one). */
export const bodyOf = (request: Request): Record<string, unknown> =>
  request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};

/** A numeric path parameter; anything else becomes NaN, which the contract refuses by name. */
export const appIdOf = (request: Request) => (/^\d+$/.test(String(request.params['appId'])) ? Number(request.params['appId']) : Number.NaN);
