import type { Request, RequestHandler } from 'express';
import { rpcMethods } from '@feedback/contracts';
import type { RpcMethod, RpcRequest } from '@feedback/contracts';
import { bodyObject } from '../../http/read-json-body.js';
import { dashboardCodes, errorAnswers } from '../../openapi/dashboard-errors.js';
import { bodySchema, json, pathParameter, requestBody } from '../../openapi/openapi-parts.js';
import type { Schema } from '../../openapi/openapi-parts.js';
import { recordId } from '../../product/request-schemas.js';
import type { RouteContext } from '../route-context.js';
import type { RouteDefinition } from '../route-definition.js';
import type { DashboardCommand } from './dashboard-commands.js';

/**
 * A path parameter as its field. App ids are numbers: one that is not, or is beyond any record's,
 * is an app no team has (404, as for another team's app, and as on the webhook and board routes).
 */
function paramValue(field: 'app_id' | 'member_id', raw: string): string | number {
  return field === 'member_id' ? raw : recordId(raw);
}

/**
 * The command's request: body fields first, so neither a path parameter nor the acting member's
 * session (always the token the request was authenticated with) can be overridden by the body.
 */
function commandRequest(route: DashboardCommand, request: Request): RpcRequest<RpcMethod> {
  const fields: Record<string, unknown> = route.body ? { ...bodyObject(request) } : {};
  for (const [param, field] of Object.entries(route.params ?? {})) fields[field] = paramValue(field, String(request.params[param]));
  if (!route.public) fields['session'] = request.member!.token;
  return fields as RpcRequest<RpcMethod>;
}

/** The operation of a command row: its body and answer are the command's contract's. */
function commandOperation(route: DashboardCommand) {
  const contract = rpcMethods[route.command];
  const parameters = Object.entries(route.params ?? {}).map(([name, field]) =>
    pathParameter(name, field === 'app_id' ? { type: 'integer' } : { type: 'string', format: 'uuid' }, field === 'app_id' ? 'App id.' : 'Member id.'),
  );
  const status = String(route.status ?? 200);
  return {
    operationId: route.command.replace('authority.', ''),
    summary: route.summary,
    tags: ['Dashboard'],
    security: route.public ? [] : [{ memberSession: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? requestBody(bodySchema(contract.request.schema as Schema, ['session', ...Object.values(route.params ?? {})])) : {}),
    responses: {
      [status]: status === '204' ? { description: 'Done.' } : { description: 'Success.', content: json(contract.result.schema) },
      ...errorAnswers(dashboardCodes(route, route.errors ?? [])),
    },
  };
}

/**
 * A row of the command table as a route. Its steps: the row's request limit if it names one, then
 * the command. The RPC client checks its request and answer with the command's contract.
 */
export function commandRoute(route: DashboardCommand): RouteDefinition<RouteContext> {
  const noLimit: RequestHandler = (_request, _response, next) => next();
  return {
    method: route.method,
    path: route.path,
    operation: commandOperation(route),
    contracts: [rpcMethods[route.command].request, rpcMethods[route.command].result],
    handlers: (context) => [
      (route.limit && context.limits?.[route.limit]) || noLimit,
      async (request, response) => {
        const result = await context.rpc.call(route.command, commandRequest(route, request), { timeoutMs: context.dashboardTimeoutMs });
        if (route.status === 204) response.status(204).end();
        else response.status(route.status ?? 200).json(result);
      },
    ],
  };
}
