import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KeyChange } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, declareExchanges, durableBrokerObjects, topologyNames } from '@feedback/messaging';
import { createTestNamespace, deleteBrokerObjects, eventually } from '@feedback/test-support';
import winston from 'winston';
import { KeyChangeListener } from './key-change-listener.js';

const amqpUrl = process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
const quiet = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const names = topologyNames(createTestNamespace());
let broker: Broker;

beforeAll(async () => {
  broker = Broker.connect({ url: amqpUrl, connectionName: 'key-change-listener-test', logger: quiet });
  await broker.waitUntilConnected(5000);
});

afterAll(async () => {
  await broker.close();
  await deleteBrokerObjects(amqpUrl, durableBrokerObjects(names.namespace, []));
});

describe('KeyChangeListener', () => {
  it('sets itself up again, cache emptied, when the broker cancels its consumer, and hears the changes after', async () => {
    const changes: string[] = [];
    let reconnects = 0;
    const listener = new KeyChangeListener(broker, names, 'api-1', quiet, (change) => changes.push(change.change_id), () => (reconnects += 1));
    const publisher = new ConfirmedPublisher(broker, { name: 'key-change-test', setup: (channel) => declareExchanges(channel, names) });
    const change = (): KeyChange => ({ change_id: randomUUID(), key_ids: [], reason: 'revoked' });
    try {
      await eventually(() => listener.queue, { what: 'the listener set up' });
      const first = change();
      await publisher.publish(names.authorityEvents, 'key.changed', first);
      await eventually(() => (changes.includes(first.change_id) ? true : undefined), { what: 'the first change' });

      // Its queue deleted under it (by an operator tidying up, say): the broker cancels the
      // consumer. Exclusive, the queue can be deleted only on its own connection.
      const gone = listener.queue!;
      const deleting = broker.channel('deleting', async (channel) => void (await channel.deleteQueue(gone)));
      await deleting.waitForConnect();
      await deleting.close();
      await eventually(() => (listener.queue !== gone ? true : undefined), { what: 'a new queue', timeoutMs: 10_000 });
      expect(reconnects).toBe(2);
      const second = change();
      await publisher.publish(names.authorityEvents, 'key.changed', second);
      await eventually(() => (changes.includes(second.change_id) ? true : undefined), { what: 'the change after' });
    } finally {
      await publisher.close();
      await listener.close();
    }
  });
});
