import type { ConfirmChannel } from 'amqplib';
import { domainEventContract } from '@feedback/contracts';
import type { DomainEvent } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { QUORUM_QUEUE, declareExchanges, startConsumer } from '@feedback/messaging';
import type { Broker, Consumer, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';

/** The worker's queue takes every domain event; fan-out to endpoints decides who gets what. */
async function declareDomainEventsQueue(channel: ConfirmChannel, names: TopologyNames): Promise<void> {
  await declareExchanges(channel, names);
  await channel.assertQueue(names.workerDomainEventsQueue, QUORUM_QUEUE);
  await channel.bindQueue(names.workerDomainEventsQueue, names.domainEvents, '#');
}

/**
 * Takes each domain event in once, whatever the broker redelivers: the first delivery records
 * it, later ones find it recorded and are acknowledged without effect.
 */
export async function receiveEvent(prisma: PrismaClient, event: DomainEvent): Promise<boolean> {
  const { count } = await prisma.receivedEvent.createMany({
    data: [{ eventId: event.id, eventType: event.event, appId: event.app.id, occurredAt: new Date(event.created_at) }],
    skipDuplicates: true,
  });
  return count === 1;
}

export function consumeDomainEvents(options: {
  broker: Broker;
  names: TopologyNames;
  prisma: PrismaClient;
  logger: Logger;
  prefetch: number;
}): Consumer {
  return startConsumer(options.broker, options.logger, {
    queue: options.names.workerDomainEventsQueue,
    setup: (channel) => declareDomainEventsQueue(channel, options.names),
    prefetch: options.prefetch,
    contract: domainEventContract,
    handle: async (event) => {
      const first = await receiveEvent(options.prisma, event);
      options.logger.info(first ? 'event received' : 'duplicate event ignored', {
        eventId: event.id,
        event: event.event,
        appId: event.app.id,
      });
    },
  });
}
