import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, appIdOf } from './dashboard-command.js';

/** GET /dashboard/v1/apps/:appId/api-key/audit — Owner or Admin: who granted, revoked, restored or rotated, and when. */
export function listKeyAuditRoute(context: RouteContext): Router {
  return Router().get(
    '/apps/:appId/api-key/audit',
    dashboardCommand(context, 'authority.listKeyAudit', (request) => ({ app_id: appIdOf(request), actor: actorOf(request) })),
  );
}
