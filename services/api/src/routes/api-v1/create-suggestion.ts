import { Router } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { createSuggestion } from '../../suggestions/create-suggestion.js';
import { createSuggestionRequest } from '../../suggestions/suggestion-schemas.js';
import type { RouteContext } from '../route-context.js';

/** POST /api/v1/suggestions — scope suggestions:write. */
export function createSuggestionRoute(context: RouteContext): Router {
  return Router().post('/suggestions', requireScope('suggestions:write', context.links), async (request, response) => {
    const input = createSuggestionRequest.parse(request.body);
    const suggestion = await createSuggestion(context.prisma, request.apiKey!.app, input);
    context.outboxRelay.wake();
    response.status(201).json(suggestion);
  });
}
