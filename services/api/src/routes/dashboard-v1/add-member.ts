import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, bodyOf } from './dashboard-command.js';

/** POST /dashboard/v1/members — Owner or Admin: adds a member (only an Owner adds Admins and Owners). */
export function addMemberRoute(context: RouteContext): Router {
  return Router().post(
    '/members',
    dashboardCommand(context, 'authority.addMember', (request) => ({ ...bodyOf(request), actor: actorOf(request) } as RpcRequest<'authority.addMember'>), 201),
  );
}
