import type { Ticket } from '../generated/prisma/client.js';

/** Human-facing ticket number. */
export const ticketNumber = (number: number) => `T-${number}`;

export function ticketView(ticket: Ticket) {
  return {
    id: ticket.id,
    number: ticketNumber(ticket.number),
    subject: ticket.subject,
    status: ticket.status,
    author: { external_id: ticket.authorExternalId, name: ticket.authorName },
    created_at: ticket.createdAt.toISOString(),
    updated_at: ticket.updatedAt.toISOString(),
  };
}
