import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, appIdOf } from './dashboard-command.js';

/** GET /dashboard/v1/apps/:appId/api-key — Owner or Admin: the app's key: scopes, status, last usage (never the secret). */
export function getApiKeyRoute(context: RouteContext): Router {
  return Router().get(
    '/apps/:appId/api-key',
    dashboardCommand(context, 'authority.getApiKey', (request) => ({ app_id: appIdOf(request), actor: actorOf(request) })),
  );
}
