import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf } from './dashboard-command.js';

/** GET /dashboard/v1/team — The team of the signed-in member. */
export function getTeamRoute(context: RouteContext): Router {
  return Router().get(
    '/team',
    dashboardCommand(context, 'authority.getTeam', (request) => ({ actor: actorOf(request) })),
  );
}
