import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, bodyOf, appIdOf } from './dashboard-command.js';

/** PATCH /dashboard/v1/apps/:appId/api-key — Owner or Admin: grants or removes scopes, or sets Full access. */
export function changeKeyScopesRoute(context: RouteContext): Router {
  return Router().patch(
    '/apps/:appId/api-key',
    dashboardCommand(context, 'authority.changeKeyScopes', (request) => ({ ...bodyOf(request), app_id: appIdOf(request), actor: actorOf(request) } as RpcRequest<'authority.changeKeyScopes'>)),
  );
}
