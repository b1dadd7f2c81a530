import { Router } from 'express';
import type { RequestHandler } from 'express';
import { methodNotAllowed } from '../../http/method-not-allowed.js';
import type { RouteContext } from '../route-context.js';
import { analyticsRoute } from './analytics.js';
import { createSuggestionRoute } from './create-suggestion.js';
import { createTicketRoute } from './create-ticket.js';
import { listSuggestionsRoute } from './list-suggestions.js';
import { listTicketsRoute } from './list-tickets.js';
import { privacyRoutes } from './privacy.js';

/** Every /api/v1 route behind secret-key authentication. */
export function apiV1Router(context: RouteContext, authenticate: RequestHandler[]): Router {
  const router = Router();
  router.use(...authenticate);
  router.use(createSuggestionRoute(context), listSuggestionsRoute(context));
  router.use(createTicketRoute(context), listTicketsRoute(context));
  router.use(analyticsRoute(context), privacyRoutes(context));
  router.all('/suggestions', methodNotAllowed(['GET', 'POST']));
  router.all('/tickets', methodNotAllowed(['GET', 'POST']));
  router.all('/analytics', methodNotAllowed(['GET']));
  router.all('/privacy/users/:externalId', methodNotAllowed(['GET', 'DELETE']));
  return router;
}
