import { keyUsageContract } from '@feedback/contracts';
import type { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';
import { QUORUM_QUEUE, declareExchanges, startConsumer } from '@feedback/messaging';
import type { Broker, Consumer, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * Records "last usage" from the batches api instances send every few seconds, so no API request
 * writes to the database. A usage never moves last_used_at backwards.
 */
export function consumeKeyUsage(broker: Broker, names: TopologyNames, prisma: PrismaClient, logger: Logger, metrics?: Registry): Consumer {
  return startConsumer(broker, logger, {
    queue: names.keyUsageQueue,
    metrics,
    setup: async (channel) => {
      await declareExchanges(channel, names, ['authorityEvents']);
      await channel.assertQueue(names.keyUsageQueue, QUORUM_QUEUE);
      await channel.bindQueue(names.keyUsageQueue, names.authorityEvents, 'key.used');
    },
    contract: keyUsageContract,
    prefetch: 5,
    handle: async ({ usages }) => {
      for (const usage of usages) {
        const at = new Date(usage.last_used_at);
        await prisma.apiKey.updateMany({
          where: { id: usage.key_id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
          data: { lastUsedAt: at },
        });
      }
    },
  });
}
