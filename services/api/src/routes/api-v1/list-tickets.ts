import { json, listQueryTypes, pageOf } from '../../openapi/openapi-parts.js';
import { listQueryContract, parseListQuery } from '../../pagination/list-query.js';
import { listTickets } from '../../tickets/list-tickets.js';
import { apiV1Route, listDescription } from './api-v1-route.js';

/** GET /api/v1/tickets — scope tickets:read; newest first, or `updated_since` oldest update first. */
export const listTicketsRoute = apiV1Route({
  method: 'get',
  path: '/tickets',
  scope: 'tickets:read',
  operationId: 'listTickets',
  summary: 'Lists tickets.',
  description: listDescription,
  tags: 'Tickets',
  query: listQueryContract,
  queryTypes: listQueryTypes,
  responses: { '200': { description: 'One page.', content: json(pageOf('Ticket')) } },
  handler: (context) => async (request, response) => {
    response.json(await listTickets(context.prisma, request.apiKey!.app.id, parseListQuery(request.query, { records: 'tickets', appId: request.apiKey!.app.id })));
  },
});
