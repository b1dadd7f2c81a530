import type { Request, RequestHandler } from 'express';
import { rpcMethods } from '@feedback/contracts';
import type { RpcMethod } from '@feedback/contracts';
import type { ErrorCode } from '../../../http/api-error.js';
import { dashboardCodes, errorAnswers } from '../../../openapi/dashboard-errors.js';
import { bodySchema, json, requestBody } from '../../../openapi/openapi-parts.js';
import type { Schema } from '../../../openapi/openapi-parts.js';
import { recordId } from '../../../product/request-schemas.js';
import type { RouteContext } from '../../route-context.js';
import type { HttpMethod, RouteDefinition } from '../../route-definition.js';
import { pathId } from './webhook-parameters.js';

/**
 * What a webhook route's handler is given: the RPC call with the dashboard's time limit, and the
 * authority's answer to who may. Each handler asks `ownerOf` (or `authorize`) first: whoever may
 * not manage webhooks is told so whatever the path or body holds.
 */
function webhookAccess(context: RouteContext) {
  const call = context.rpc.call.bind(context.rpc);
  const timeout = { timeoutMs: context.dashboardTimeoutMs };
  const authorize = (request: Request) =>
    call('authority.authorizeWebhookManagement', { app_id: recordId(request.params['appId']), session: request.member!.token }, timeout);
  const ownerOf = async (request: Request) => {
    const granted = await authorize(request);
    return { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
  };
  return {
    call,
    timeout,
    authorize,
    ownerOf,
    endpointId: (request: Request) => pathId(request, 'endpointId'),
    deliveryId: (request: Request) => pathId(request, 'deliveryId'),
    recoveryId: (request: Request) => pathId(request, 'recoveryId'),
    memberName: (request: Request) => request.member!.name,
  };
}

export type WebhookAccess = ReturnType<typeof webhookAccess>;

/** A webhook route: the authority decides who may, the worker answers the command. */
interface WebhookRouteSpec {
  method: HttpMethod;
  /** Below /dashboard/v1, starting `/apps/:appId/webhooks`. */
  path: string;
  operationId: string;
  summary: string;
  /** Default: none. */
  description?: string;
  /** The worker's command. Its answer is the success body, and its request, less what the route fills in, the request body. Default: none. */
  command?: RpcMethod;
  /** The success status, with the command's answer as its body. Default: 200. */
  status?: '200' | '201' | '202';
  /** The success answer, where it is not the command's answer. Default: the command's, at `status`. */
  success?: Record<string, unknown>;
  /** The request body is the command's request less `owner` and these fields. Default: the route takes no body. */
  bodyOmits?: readonly string[];
  /** Its own error codes, besides who may not, a record not of this team, and a bad parameter. */
  codes: readonly ErrorCode[];
  parameters: Schema[];
  handler: (access: WebhookAccess) => RequestHandler;
}

function webhookOperation(spec: WebhookRouteSpec) {
  const command = spec.command ? rpcMethods[spec.command] : undefined;
  const success = spec.success ?? { [spec.status ?? '200']: { description: 'Success.', content: json(command?.result.schema) } };
  const body = spec.bodyOmits && command ? requestBody(bodySchema(command.request.schema as Schema, ['owner', ...spec.bodyOmits])) : undefined;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: ['Webhooks'],
    security: [{ memberSession: [] }],
    parameters: spec.parameters,
    ...body,
    responses: { ...success, ...errorAnswers(dashboardCodes({ body: body !== undefined }, ['insufficient_role', 'not_found', 'validation_failed', ...spec.codes])) },
  };
}

/** A webhook route. Its one step is the handler, which asks the authority before anything else. */
export function webhookRoute(spec: WebhookRouteSpec): RouteDefinition<RouteContext> {
  const authorization = rpcMethods['authority.authorizeWebhookManagement'];
  const command = spec.command ? rpcMethods[spec.command] : undefined;
  return {
    method: spec.method,
    path: spec.path,
    operation: webhookOperation(spec),
    contracts: [authorization.request, authorization.result, ...(command ? [command.request, command.result] : [])],
    handlers: (context) => [spec.handler(webhookAccess(context))],
  };
}
