import { json, listQueryTypes, pageOf } from '../../openapi/openapi-parts.js';
import { sendJson } from '../../pagination/json-page.js';
import { listQueryContract, parseListQuery } from '../../pagination/list-query.js';
import { listSuggestions } from '../../suggestions/list-suggestions.js';
import { apiV1Route, listDescription } from './api-v1-route.js';

/** GET /api/v1/suggestions — scope suggestions:read; newest first, or `updated_since` oldest update first. */
export const listSuggestionsRoute = apiV1Route({
  method: 'get',
  path: '/suggestions',
  scope: 'suggestions:read',
  operationId: 'listSuggestions',
  summary: 'Lists suggestions, each with its author.',
  description: listDescription,
  tags: 'Suggestions',
  query: listQueryContract,
  queryTypes: listQueryTypes,
  responses: { '200': { description: 'One page.', content: json(pageOf('Suggestion')) } },
  handler: (context) => async (request, response) => {
    sendJson(response, await listSuggestions(context.sql, request.apiKey!.app.id, parseListQuery(request.query, { records: 'suggestions', appId: request.apiKey!.app.id })));
  },
});
