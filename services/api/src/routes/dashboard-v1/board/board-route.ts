import type { RequestHandler } from 'express';
import type { Contract } from '@feedback/contracts';
import type { ErrorCode } from '../../../http/api-error.js';
import { dashboardCodes, errorAnswers } from '../../../openapi/dashboard-errors.js';
import { queryParameters, requestBody } from '../../../openapi/openapi-parts.js';
import type { Schema } from '../../../openapi/openapi-parts.js';
import type { AppRef } from '../../../product/actor.js';
import { recordId } from '../../../product/request-schemas.js';
import type { RouteContext } from '../../route-context.js';
import { readBody } from '../../route-definition.js';
import type { BodyHandler, HttpMethod, RouteDefinition } from '../../route-definition.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The app of a board route's path, once the authority said the member's team has it. */
      boardApp?: AppRef;
    }
  }
}

/** A board route: any member of the app's team works on its feedback. */
interface BoardRouteSpec {
  method: HttpMethod;
  /** Below /dashboard/v1, starting `/apps/:appId/`. */
  path: string;
  operationId: string;
  summary: string;
  /** The success answer, by status. */
  success: Record<string, unknown>;
  /** Its own error codes, besides those of any member route. */
  codes: readonly ErrorCode[];
  /** Path parameters. */
  parameters: Schema[];
  /** The query's contract, which the handler reads the query with. Default: none. */
  query?: Contract<unknown>;
  /** The type clients send a query parameter as, where the contract's string is not it. Default: none. */
  queryTypes?: Record<string, Schema>;
}

/**
 * The app of the path, if the member's team has it: asked of the authority first, on every board
 * route, so another team's app is 404 whatever the request holds.
 */
function boardApp(context: RouteContext): RequestHandler {
  return async (request, _response, next) => {
    const app = await context.rpc.call(
      'authority.getApp',
      { app_id: recordId(request.params['appId']), session: request.member!.token },
      { timeoutMs: context.dashboardTimeoutMs },
    );
    request.boardApp = { id: app.id, public_key: app.public_key };
    next();
  };
}

function boardOperation(spec: BoardRouteSpec, body: Contract<unknown> | undefined) {
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: ['Dashboard'],
    security: [{ memberSession: [] }],
    parameters: [...spec.parameters, ...(spec.query ? queryParameters(spec.query, spec.queryTypes) : [])],
    ...(body ? requestBody(body.schema) : {}),
    responses: { ...spec.success, ...errorAnswers(dashboardCodes({ body: body !== undefined }, spec.codes)) },
  };
}

/** A board route. Its steps: the app checked, then, with a `body` contract, the body checked, then the handler. */
export function boardRoute<B>(spec: BoardRouteSpec & { body: Contract<B>; handler: (context: RouteContext) => BodyHandler<B> }): RouteDefinition<RouteContext>;
export function boardRoute(spec: BoardRouteSpec & { handler: (context: RouteContext) => RequestHandler }): RouteDefinition<RouteContext>;
export function boardRoute(
  spec: BoardRouteSpec & { body?: Contract<unknown>; handler: (context: RouteContext) => RequestHandler | BodyHandler<unknown> },
): RouteDefinition<RouteContext> {
  const { body } = spec;
  return {
    method: spec.method,
    path: spec.path,
    operation: boardOperation(spec, body),
    contracts: [body, spec.query].filter((contract) => contract !== undefined),
    handlers: (context) => {
      const handler = spec.handler(context);
      return [boardApp(context), body ? readBody(body, handler as BodyHandler<unknown>) : (handler as RequestHandler)];
    },
  };
}
