import { Router } from 'express';
import type { RequestHandler } from 'express';
import type { RouteContext } from '../route-context.js';
import { mountRoutes } from '../route-definition.js';
import type { RouteDefinition } from '../route-definition.js';
import { analyticsRoute } from './analytics.js';
import { createSuggestionRoute } from './create-suggestion.js';
import { createTicketRoute } from './create-ticket.js';
import { listSuggestionsRoute } from './list-suggestions.js';
import { listTicketsRoute } from './list-tickets.js';
import { eraseUserDataRoute, exportUserDataRoute } from './privacy.js';

/** Every /api/v1 route. A path's methods are listed in its `Allow` in this order. */
export const API_V1_ROUTES: readonly RouteDefinition<RouteContext>[] = [
  listSuggestionsRoute,
  createSuggestionRoute,
  listTicketsRoute,
  createTicketRoute,
  analyticsRoute,
  exportUserDataRoute,
  eraseUserDataRoute,
];

/** Every /api/v1 route behind secret-key authentication. */
export function apiV1Router(context: RouteContext, authenticate: RequestHandler[]): Router {
  const router = Router();
  router.use(...authenticate);
  mountRoutes(router, API_V1_ROUTES, context);
  return router;
}
