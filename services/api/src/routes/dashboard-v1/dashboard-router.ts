import { Router } from 'express';
import { memberAuth } from '../../auth/member-auth.js';
import type { RouteContext } from '../route-context.js';
import { mountRoutes } from '../route-definition.js';
import type { RouteDefinition } from '../route-definition.js';
import { BOARD_ROUTES } from './board/board-routes.js';
import { commandRoute } from './command-route.js';
import { DASHBOARD_COMMANDS } from './dashboard-commands.js';
import { WEBHOOK_ROUTES } from './webhooks/webhook-routes.js';

/** Sign-up and sign-in: answered without a member session. */
const PUBLIC_ROUTES = DASHBOARD_COMMANDS.filter((command) => command.public).map(commandRoute);

/** Every other /dashboard/v1 route: the authority's commands, the board, and webhooks. */
const MEMBER_ROUTES: readonly RouteDefinition<RouteContext>[] = [
  ...DASHBOARD_COMMANDS.filter((command) => !command.public).map(commandRoute),
  ...BOARD_ROUTES,
  ...WEBHOOK_ROUTES,
];

export const DASHBOARD_V1_ROUTES: readonly RouteDefinition<RouteContext>[] = [...PUBLIC_ROUTES, ...MEMBER_ROUTES];

/** Every /dashboard/v1 route: public ones first, then the member session is required. */
export function dashboardRouter(context: RouteContext): Router {
  const router = Router();
  // Their 405s come before the session check: a wrong method on sign-in is 405, not a failed authentication.
  mountRoutes(router, PUBLIC_ROUTES, context);
  router.use(memberAuth(context.sessionKeys));
  mountRoutes(router, MEMBER_ROUTES, context);
  return router;
}
