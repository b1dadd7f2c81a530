import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, bodyOf } from './dashboard-command.js';

/** POST /dashboard/v1/sign-up — Creates a team (Free plan) and its Owner; answers a session. */
export function signUpRoute(context: RouteContext): Router {
  return Router().post(
    '/sign-up',
    dashboardCommand(context, 'authority.signUp', (request) => (bodyOf(request) as RpcRequest<'authority.signUp'>), 201),
  );
}
