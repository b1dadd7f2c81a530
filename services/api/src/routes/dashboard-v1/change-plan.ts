import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, bodyOf } from './dashboard-command.js';

/** PATCH /dashboard/v1/team — Owner only: changes the plan. */
export function changePlanRoute(context: RouteContext): Router {
  return Router().patch(
    '/team',
    dashboardCommand(context, 'authority.changePlan', (request) => ({ ...bodyOf(request), actor: actorOf(request) } as RpcRequest<'authority.changePlan'>)),
  );
}
