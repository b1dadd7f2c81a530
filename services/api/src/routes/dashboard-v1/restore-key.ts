import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, appIdOf } from './dashboard-command.js';

/** POST /dashboard/v1/apps/:appId/api-key/restore — Owner or Admin: the same key works again. */
export function restoreKeyRoute(context: RouteContext): Router {
  return Router().post(
    '/apps/:appId/api-key/restore',
    dashboardCommand(context, 'authority.restoreKey', (request) => ({ app_id: appIdOf(request), actor: actorOf(request) })),
  );
}
