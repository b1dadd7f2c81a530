import { Router } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { idempotencyKeyOf, idempotent, sendOutcome } from '../../idempotency/idempotent.js';
import { openTicket } from '../../tickets/ticket-commands.js';
import { createTicketRequest } from '../../tickets/ticket-schemas.js';
import type { RouteContext } from '../route-context.js';

/** POST /api/v1/tickets — scope tickets:write; honours Idempotency-Key. */
export function createTicketRoute(context: RouteContext): Router {
  return Router().post('/tickets', requireScope('tickets:write', context.links), ...readJsonBody, async (request, response) => {
    const input = createTicketRequest.parse(request.body);
    const app = request.apiKey!.app;
    const outcome = await idempotent(context.prisma, { appId: app.id, key: idempotencyKeyOf(request), request }, async (tx) => ({
      status: 201,
      body: await openTicket(tx, app, input),
    }));
    context.outboxRelay.wake();
    sendOutcome(response, outcome);
  });
}
