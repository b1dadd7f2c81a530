import { idempotencyKeyOf, idempotent, sendOutcome } from '../../idempotency/idempotent.js';
import { createSuggestion } from '../../suggestions/suggestion-commands.js';
import { createSuggestionRequest } from '../../suggestions/suggestion-schemas.js';
import { apiV1Route, created, idempotencyKeyHeader } from './api-v1-route.js';

/** POST /api/v1/suggestions — scope suggestions:write; honours Idempotency-Key. */
export const createSuggestionRoute = apiV1Route({
  method: 'post',
  path: '/suggestions',
  scope: 'suggestions:write',
  operationId: 'createSuggestion',
  summary: 'Creates a suggestion on behalf of one of your users.',
  tags: 'Suggestions',
  parameters: [idempotencyKeyHeader],
  body: createSuggestionRequest,
  responses: created('Suggestion'),
  handler: (context) => async (request, response, input) => {
    const app = request.apiKey!.app;
    const key = idempotencyKeyOf(request);
    // Without a key, the one statement is its transaction; with one, it joins the key's claim.
    const outcome = key === undefined
      ? { status: 201, body: await createSuggestion(context.sql, app, input) }
      : await idempotent(context.prisma, { appId: app.id, key, request }, async (tx) => ({ status: 201, body: await createSuggestion(tx, app, input) }));
    context.outboxRelay.wake();
    sendOutcome(response, outcome);
  },
});
