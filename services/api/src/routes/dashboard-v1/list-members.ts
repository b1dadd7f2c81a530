import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf } from './dashboard-command.js';

/** GET /dashboard/v1/members — The team's members. */
export function listMembersRoute(context: RouteContext): Router {
  return Router().get(
    '/members',
    dashboardCommand(context, 'authority.listMembers', (request) => ({ actor: actorOf(request) })),
  );
}
