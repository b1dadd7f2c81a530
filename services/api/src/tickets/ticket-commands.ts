import type { TicketStatus } from '@feedback/contracts';
import type { Prisma } from '../database.js';
import type { Ticket } from '../generated/prisma/client.js';
import { ApiError } from '../http/api-error.js';
import { writeEvent } from '../outbox/write-event.js';
import { senderOf } from '../product/actor.js';
import type { Actor, AppRef } from '../product/actor.js';
import { TICKET_TRANSITIONS, assertTransition } from '../product/status-transitions.js';
import { ticketNumber, ticketView } from './ticket-view.js';

type Tx = Prisma.TransactionClient;

/** Opens a ticket for an end user, with their first message; they are author and sender. */
export async function openTicket(
  tx: Tx,
  app: AppRef,
  input: { subject: string; body: string; author: { external_id: string; name?: string | null } },
) {
  // Per-app numbers without gaps from races: one atomic increment per ticket.
  const counter = await tx.appCounter.upsert({
    where: { appId: app.id },
    create: { appId: app.id, lastTicketNumber: 1 },
    update: { lastTicketNumber: { increment: 1 } },
  });
  const author = { external_id: input.author.external_id, name: input.author.name ?? null };
  const ticket = await tx.ticket.create({
    data: {
      appId: app.id,
      number: counter.lastTicketNumber,
      subject: input.subject,
      authorExternalId: author.external_id,
      authorName: author.name,
      messages: {
        create: {
          appId: app.id,
          body: input.body,
          visibility: 'public',
          senderType: 'app_user',
          senderExternalId: author.external_id,
          senderName: author.name,
        },
      },
    },
  });
  const view = ticketView(ticket);
  await writeEvent(tx, {
    event: 'ticket.created',
    app,
    created_at: ticket.createdAt,
    data: { ticket: view, author, sender: senderOf({ type: 'app_user', externalId: author.external_id, name: author.name }) },
  });
  return view;
}

async function lockTicket(tx: Tx, appId: number, ticketId: number, notFound = `No ticket ${ticketId} in this app.`): Promise<Ticket> {
  const [row] = await tx.$queryRaw<Array<{ id: number }>>`SELECT id FROM api.tickets WHERE id = ${ticketId} AND app_id = ${appId} FOR UPDATE`;
  if (!row) throw new ApiError('not_found', notFound);
  return tx.ticket.findUniqueOrThrow({ where: { id: ticketId } });
}

const authorOf = (ticket: Ticket) => ({ external_id: ticket.authorExternalId, name: ticket.authorName });

async function moveTicket(tx: Tx, app: AppRef, ticket: Ticket, status: TicketStatus, actor: Actor) {
  const updated = await tx.ticket.update({ where: { id: ticket.id }, data: { status } });
  await writeEvent(tx, {
    event: 'ticket.status_changed',
    app,
    created_at: updated.updatedAt,
    data: {
      ticket_id: ticket.id,
      ticket_number: ticketNumber(ticket.number),
      status_before: ticket.status,
      status_after: status,
      author: authorOf(ticket),
      sender: senderOf(actor),
    },
  });
  return updated;
}

export async function changeTicketStatus(tx: Tx, app: AppRef, ticketId: number, status: TicketStatus, actor: Actor) {
  const ticket = await lockTicket(tx, app.id, ticketId);
  assertTransition(TICKET_TRANSITIONS, ticket.status, status, 'ticket');
  return ticketView(await moveTicket(tx, app, ticket, status, actor));
}

/**
 * Adds a message to a ticket. A public message emits `ticket.replied`; an internal note (team
 * only) never does. An end user may reply only to their own ticket, and their reply reopens a
 * pending or solved ticket. A closed ticket takes no more messages.
 */
export async function addTicketMessage(
  tx: Tx,
  app: AppRef,
  ticketId: number,
  input: { body: string; visibility: 'public' | 'internal' },
  actor: Actor,
) {
  // An end user is told the same whether the ticket is missing or someone else's: the widget's
  // key is public, and a different answer would show which ticket ids exist.
  const notYours = `No ticket ${ticketId} of yours in this app.`;
  let ticket = await lockTicket(tx, app.id, ticketId, actor.type === 'app_user' ? notYours : undefined);
  if (actor.type === 'app_user' && ticket.authorExternalId !== actor.externalId) throw new ApiError('not_found', notYours);
  if (actor.type === 'app_user' && input.visibility === 'internal') {
    throw new ApiError('validation_failed', 'Only team members write internal notes.', { field: '/visibility' });
  }
  if (ticket.status === 'closed') throw new ApiError('ticket_closed', 'This ticket is closed; open a new one.');
  const message = await tx.ticketMessage.create({
    data: {
      ticketId,
      appId: app.id,
      body: input.body,
      visibility: input.visibility,
      senderType: actor.type === 'member' ? 'agent' : 'app_user',
      memberId: actor.type === 'member' ? actor.memberId : null,
      senderExternalId: actor.type === 'app_user' ? actor.externalId : null,
      senderName: actor.name,
    },
  });
  if (actor.type === 'app_user' && (ticket.status === 'pending' || ticket.status === 'solved')) {
    ticket = await moveTicket(tx, app, ticket, 'open', actor);
  } else {
    ticket = await tx.ticket.update({ where: { id: ticketId }, data: { updatedAt: new Date() } });
  }
  if (input.visibility === 'public') {
    await writeEvent(tx, {
      event: 'ticket.replied',
      app,
      created_at: message.createdAt,
      data: {
        ticket_id: ticket.id,
        ticket_number: ticketNumber(ticket.number),
        message_id: message.id,
        sender_type: message.senderType,
        body: message.body,
        author: authorOf(ticket),
        sender: senderOf(actor),
      },
    });
  }
  return {
    id: message.id,
    ticket_id: ticket.id,
    body: message.body,
    visibility: message.visibility,
    sender_type: message.senderType,
    created_at: message.createdAt.toISOString(),
  };
}
