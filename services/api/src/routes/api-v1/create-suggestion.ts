import { Router } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { idempotencyKeyOf, idempotent, sendOutcome } from '../../idempotency/idempotent.js';
import { createSuggestion } from '../../suggestions/suggestion-commands.js';
import { createSuggestionRequest } from '../../suggestions/suggestion-schemas.js';
import type { RouteContext } from '../route-context.js';

/** POST /api/v1/suggestions — scope suggestions:write; honours Idempotency-Key. */
export function createSuggestionRoute(context: RouteContext): Router {
  return Router().post('/suggestions', requireScope('suggestions:write', context.links), ...readJsonBody, async (request, response) => {
    const input = createSuggestionRequest.parse(request.body);
    const app = request.apiKey!.app;
    const outcome = await idempotent(context.prisma, { appId: app.id, key: idempotencyKeyOf(request), request }, async (tx) => ({
      status: 201,
      body: await createSuggestion(tx, app, input),
    }));
    context.outboxRelay.wake();
    sendOutcome(response, outcome);
  });
}
