import type { RouteDefinition } from '../routes/route-definition.js';
import { errorResponse, json } from './openapi-parts.js';

/** GET /api/v1/openapi.json: the document, public, served whichever surfaces an instance serves. */
export const OPENAPI_ROUTE: RouteDefinition<{ document: object }> = {
  method: 'get',
  path: '/openapi.json',
  operation: {
    operationId: 'getOpenApiDocument',
    summary: 'This document. Public: no key needed.',
    tags: ['Meta'],
    security: [],
    responses: {
      '200': { description: 'The OpenAPI document.', content: json({ type: 'object' }) },
      '4XX': errorResponse('A client error, with the usual error body.'),
    },
  },
  contracts: [],
  handlers: ({ document }) => [
    (_request, response) => {
      response.json(document);
    },
  ],
};
