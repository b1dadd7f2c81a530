import { idempotencyKeyOf, idempotent, sendOutcome } from '../../idempotency/idempotent.js';
import { openTicket } from '../../tickets/ticket-commands.js';
import { createTicketRequest } from '../../tickets/ticket-schemas.js';
import { apiV1Route, created, idempotencyKeyHeader } from './api-v1-route.js';

/** POST /api/v1/tickets — scope tickets:write; honours Idempotency-Key. */
export const createTicketRoute = apiV1Route({
  method: 'post',
  path: '/tickets',
  scope: 'tickets:write',
  operationId: 'createTicket',
  summary: 'Opens a ticket on behalf of one of your users, with its first message.',
  tags: 'Tickets',
  parameters: [idempotencyKeyHeader],
  body: createTicketRequest,
  responses: created('Ticket'),
  handler: (context) => async (request, response, input) => {
    const app = request.apiKey!.app;
    const outcome = await idempotent(context.prisma, { appId: app.id, key: idempotencyKeyOf(request), request }, async (tx) => ({
      status: 201,
      body: await openTicket(tx, app, input),
    }));
    context.outboxRelay.wake();
    sendOutcome(response, outcome);
  },
});
