import { Router } from 'express';
import type { RpcRequest } from '@feedback/contracts';
import type { RouteContext } from '../route-context.js';
import { dashboardCommand, bodyOf } from './dashboard-command.js';

/** POST /dashboard/v1/sign-in — Answers a session for an email and password. */
export function signInRoute(context: RouteContext): Router {
  return Router().post(
    '/sign-in',
    dashboardCommand(context, 'authority.signIn', (request) => (bodyOf(request) as RpcRequest<'authority.signIn'>)),
  );
}
