import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, bodyOf } from './dashboard-command.js';

/** PATCH /dashboard/v1/members/:memberId — Owner only: changes a member's role; the last Owner stays. */
export function changeRoleRoute(context: RouteContext): Router {
  return Router().patch(
    '/members/:memberId',
    dashboardCommand(context, 'authority.changeRole', (request) => ({ ...bodyOf(request), member_id: String(request.params['memberId']), actor: actorOf(request) } as RpcRequest<'authority.changeRole'>)),
  );
}
