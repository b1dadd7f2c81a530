import { Router } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { parseListQuery } from '../../pagination/list-query.js';
import { listTickets } from '../../tickets/list-tickets.js';
import type { RouteContext } from '../route-context.js';

/** GET /api/v1/tickets — scope tickets:read; newest first, or `updated_since` oldest update first. */
export function listTicketsRoute(context: RouteContext): Router {
  return Router().get('/tickets', requireScope('tickets:read', context.links), ...readJsonBody, async (request, response) => {
    response.json(await listTickets(context.prisma, request.apiKey!.app.id, parseListQuery(request.query, { records: 'tickets', appId: request.apiKey!.app.id })));
  });
}
