import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, appIdOf } from './dashboard-command.js';

/** POST /dashboard/v1/apps/:appId/api-key/rotate — Owner or Admin: a new key, shown once; the old one gets 401 once this returns. */
export function rotateKeyRoute(context: RouteContext): Router {
  return Router().post(
    '/apps/:appId/api-key/rotate',
    dashboardCommand(context, 'authority.rotateKey', (request) => ({ app_id: appIdOf(request), actor: actorOf(request) })),
  );
}
