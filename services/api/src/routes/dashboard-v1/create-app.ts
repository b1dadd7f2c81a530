import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, actorOf, bodyOf } from './dashboard-command.js';

/** POST /dashboard/v1/apps — Owner or Admin: creates an app; the answer shows its secret key once. */
export function createAppRoute(context: RouteContext): Router {
  return Router().post(
    '/apps',
    dashboardCommand(context, 'authority.createApp', (request) => ({ ...bodyOf(request), actor: actorOf(request) } as RpcRequest<'authority.createApp'>), 201),
  );
}
