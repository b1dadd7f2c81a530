import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf } from './dashboard-command.js';

/** GET /dashboard/v1/apps — The team's apps. */
export function listAppsRoute(context: RouteContext): Router {
  return Router().get(
    '/apps',
    dashboardCommand(context, 'authority.listApps', (request) => ({ actor: actorOf(request) })),
  );
}
