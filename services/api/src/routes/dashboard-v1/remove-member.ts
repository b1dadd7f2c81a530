import { Router } from 'express';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf } from './dashboard-command.js';

/** DELETE /dashboard/v1/members/:memberId — Removes a member; the last Owner cannot be removed. */
export function removeMemberRoute(context: RouteContext): Router {
  return Router().delete(
    '/members/:memberId',
    dashboardCommand(context, 'authority.removeMember', (request) => ({ member_id: String(request.params['memberId']), actor: actorOf(request) }), 204),
  );
}
