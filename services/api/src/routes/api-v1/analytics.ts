import { analyticsFor, analyticsQueryContract, analyticsResultSchema } from '../../analytics/analytics.js';
import { json } from '../../openapi/openapi-parts.js';
import { apiV1Route } from './api-v1-route.js';

/** GET /api/v1/analytics — scope analytics:read. */
export const analyticsRoute = apiV1Route({
  method: 'get',
  path: '/analytics',
  scope: 'analytics:read',
  operationId: 'getAnalytics',
  summary: 'Counts over a period: suggestions and tickets created, by status; survey responses, average score and NPS.',
  tags: 'Analytics',
  query: analyticsQueryContract,
  responses: { '200': { description: 'The counts.', content: json(analyticsResultSchema) } },
  handler: (context) => async (request, response) => {
    response.json(await analyticsFor(context.prisma, request.apiKey!.app.id, request.query));
  },
});
