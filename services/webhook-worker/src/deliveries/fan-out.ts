import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@feedback/contracts';
import type { ConfirmedPublisher, WebhookQueueNames } from '@feedback/messaging';
import { ATTEMPT_HEADER } from '@feedback/messaging';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * Turns one domain event into one delivery per endpoint of its app that selected its name,
 * whatever the broker redelivers: the (event, endpoint) pair is unique, and each delivery's id,
 * made here once, is the envelope `id` on every attempt. Every delivery of the event not yet
 * attempted is queued, so a crash between the commit and the publish loses nothing (an attempt
 * queued twice is sent once: see deliver.ts).
 */
export async function fanOut(prisma: PrismaClient, publisher: ConfirmedPublisher, queues: WebhookQueueNames, event: DomainEvent): Promise<number> {
  const endpoints = await prisma.webhookEndpoint.findMany({
    where: { appId: event.app.id, events: { has: event.event } },
    select: { id: true },
  });
  if (endpoints.length === 0) return 0;
  await prisma.delivery.createMany({
    data: endpoints.map((endpoint) => {
      const id = randomUUID();
      const envelope = { id, event: event.event, created_at: event.created_at, app: event.app, data: event.data };
      return {
        id,
        endpointId: endpoint.id,
        eventId: event.id,
        eventType: event.event,
        appId: event.app.id,
        payload: envelope as unknown as Prisma.InputJsonValue,
      };
    }),
    skipDuplicates: true,
  });
  const waiting = await prisma.delivery.findMany({ where: { eventId: event.id, attempts: 0, status: 'pending' }, select: { id: true } });
  await Promise.all(
    waiting.map((delivery) =>
      publisher.sendToQueue(queues.deliver, { delivery_id: delivery.id }, { messageId: delivery.id, headers: { [ATTEMPT_HEADER]: 1 } }),
    ),
  );
  return waiting.length;
}
