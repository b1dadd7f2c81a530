import { Router } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { parseListQuery } from '../../pagination/list-query.js';
import { listSuggestions } from '../../suggestions/list-suggestions.js';
import type { RouteContext } from '../route-context.js';

/** GET /api/v1/suggestions — scope suggestions:read; newest first, or `updated_since` oldest update first. */
export function listSuggestionsRoute(context: RouteContext): Router {
  return Router().get('/suggestions', requireScope('suggestions:read', context.links), ...readJsonBody, async (request, response) => {
    response.json(await listSuggestions(context.prisma, request.apiKey!.app.id, parseListQuery(request.query, { records: 'suggestions', appId: request.apiKey!.app.id })));
  });
}
