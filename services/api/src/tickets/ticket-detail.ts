import type { PrismaClient } from '../database.js';
import type { TicketMessage } from '../generated/prisma/client.js';
import { ApiError } from '../http/api-error.js';
import { threadPageQuery, toThreadPage } from '../pagination/page-parameters.js';
import type { ThreadPage } from '../pagination/page-parameters.js';
import { writerOf } from '../product/actor.js';
import { TICKET_TRANSITIONS } from '../product/status-transitions.js';
import { ticketView } from './ticket-view.js';

/** What the board shows of one ticket and its messages, for a member of the app's team. */

const notFound = (ticketId: number) => new ApiError('not_found', `No ticket ${ticketId} in this app.`);

/** The ticket as the list shows it, and the statuses it may move to now. */
export async function ticketDetail(prisma: PrismaClient, appId: number, ticketId: number) {
  const ticket = await prisma.ticket.findFirst({ where: { id: ticketId, appId } });
  if (!ticket) throw notFound(ticketId);
  return { ...ticketView(ticket), allowed_statuses: [...TICKET_TRANSITIONS[ticket.status]] };
}

/** A message as its POST answers it, with its sender. */
export function messageItem(message: TicketMessage) {
  return {
    id: message.id,
    ticket_id: message.ticketId,
    body: message.body,
    visibility: message.visibility,
    sender_type: message.senderType,
    sender: writerOf(message.senderType, message.senderExternalId, message.senderName),
    created_at: message.createdAt.toISOString(),
  };
}

/** A cursor is valid on the messages of the ticket it came from. */
export const messagesTag = (appId: number, ticketId: number) => `messages:${appId}:${ticketId}`;

/** A page of the ticket's messages, public replies and internal notes alike, oldest first. */
export async function ticketMessages(prisma: PrismaClient, appId: number, ticketId: number, page: ThreadPage) {
  if (!(await prisma.ticket.findFirst({ where: { id: ticketId, appId }, select: { id: true } }))) throw notFound(ticketId);
  const { where, orderBy, take } = threadPageQuery(page);
  const rows = await prisma.ticketMessage.findMany({ where: { ticketId, appId, ...where }, orderBy, take });
  return toThreadPage(page, rows, messageItem);
}
