import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, appIdOf } from './dashboard-command.js';

/** POST /dashboard/v1/apps/:appId/api-key/revoke — Owner or Admin: every request with the key gets 401 once this returns. */
export function revokeKeyRoute(context: RouteContext): Router {
  return Router().post(
    '/apps/:appId/api-key/revoke',
    dashboardCommand(context, 'authority.revokeKey', (request) => ({ app_id: appIdOf(request), actor: actorOf(request) })),
  );
}
