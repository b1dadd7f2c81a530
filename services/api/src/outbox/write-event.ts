import { randomUUID } from 'node:crypto';
import { domainEventContract } from '@feedback/contracts';
import type { DomainEvent } from '@feedback/contracts';
import type { Prisma } from '../database.js';

/** The event as the outbox stores it: given its id and time, and checked against its contract. */
export function eventToWrite(event: Omit<DomainEvent, 'id' | 'created_at'> & { created_at?: Date }): DomainEvent {
  return domainEventContract.parse({
    ...event,
    id: randomUUID(),
    created_at: (event.created_at ?? new Date()).toISOString(),
  });
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the
 * change it describes was committed. The relay publishes it afterwards.
 */
export async function writeEvent(
  tx: Prisma.TransactionClient,
  event: Omit<DomainEvent, 'id' | 'created_at'> & { created_at?: Date },
): Promise<DomainEvent> {
  const full = eventToWrite(event);
  await tx.outboxEvent.create({
    data: { eventId: full.id, eventType: full.event, payload: full as unknown as Prisma.InputJsonValue },
  });
  return full;
}
