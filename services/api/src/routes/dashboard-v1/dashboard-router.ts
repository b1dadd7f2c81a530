import { Router } from 'express';
import type { Request, RequestHandler } from 'express';
import type { RpcMethod, RpcRequest } from '@feedback/contracts';
import { memberAuth } from '../../auth/member-auth.js';
import { answerOtherMethods } from '../../http/method-not-allowed.js';
import { bodyObject } from '../../http/read-json-body.js';
import { recordId } from '../../product/request-schemas.js';
import type { RouteContext } from '../route-context.js';
import { mountRoutes } from '../route-definition.js';
import { BOARD_ROUTES } from './board/board-routes.js';
import { DASHBOARD_ROUTES } from './dashboard-routes.js';
import { webhooksRouter } from './webhooks/webhooks-router.js';
import type { DashboardRoute } from './dashboard-routes.js';

/**
 * A path parameter as its field. App ids are numbers: one that is not, or is beyond any record's,
 * is an app no team has (404, as for another team's app, and as on the webhook and product routes).
 */
function paramValue(field: 'app_id' | 'member_id', raw: string): string | number {
  return field === 'member_id' ? raw : recordId(raw);
}

/**
 * The command's request: body fields first, so neither a path parameter nor the acting member's
 * session (always the token the request was authenticated with) can be overridden by the body.
 */
function commandRequest(route: DashboardRoute, request: Request): RpcRequest<RpcMethod> {
  const fields: Record<string, unknown> = route.body ? { ...bodyObject(request) } : {};
  for (const [param, field] of Object.entries(route.params ?? {})) fields[field] = paramValue(field, String(request.params[param]));
  if (!route.public) fields['session'] = request.member!.token;
  return fields as RpcRequest<RpcMethod>;
}

/** Every /dashboard/v1 route: public ones first, then the member session is required. */
export function dashboardRouter(context: RouteContext): Router {
  const router = Router();
  const noLimit: RequestHandler = (_request, _response, next) => next();
  const mount = (route: DashboardRoute) =>
    router[route.method](route.path, (route.limit && context.limits?.[route.limit]) || noLimit, async (request, response) => {
      const result = await context.rpc.call(route.command, commandRequest(route, request), { timeoutMs: context.dashboardTimeoutMs });
      if (route.status === 204) response.status(204).end();
      else response.status(route.status ?? 200).json(result);
    });
  DASHBOARD_ROUTES.filter((route) => route.public).forEach(mount);
  // Before the session check: a wrong method on sign-in is 405, not a failed authentication.
  answerOtherMethods(router);
  router.use(memberAuth(context.sessionKeys));
  DASHBOARD_ROUTES.filter((route) => !route.public).forEach(mount);
  mountRoutes(router, BOARD_ROUTES, context);
  router.use(webhooksRouter(context));
  answerOtherMethods(router);
  return router;
}
