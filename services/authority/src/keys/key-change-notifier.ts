import type { KeyChange } from '@feedback/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@feedback/logging';
import { AcknowledgedBroadcast, BroadcastTimeoutError, RpcError, declareExchanges } from '@feedback/messaging';
import type { Broker, TopologyNames } from '@feedback/messaging';

/**
 * Tells every api instance that keys changed, and returns only when each live instance has
 * dropped them from its cache. This is what makes "revoked" true everywhere by the time the
 * dashboard call returns. Live instances are counted as the consumers of the presence queue.
 */
export class KeyChangeNotifier {
  private readonly broadcast: AcknowledgedBroadcast;

  constructor(
    broker: Broker,
    private readonly names: TopologyNames,
    private readonly logger: Logger,
    /** How long to wait for every api instance. Default: 3000. */
    private readonly timeoutMs = 3000,
  ) {
    this.broadcast = new AcknowledgedBroadcast(broker, {
      name: 'key-change-notifier',
      setup: async (channel) => {
        await declareExchanges(channel, names);
        await channel.assertQueue(names.apiInstancesQueue, { durable: true });
      },
    });
  }

  async notify(change: Omit<KeyChange, 'change_id'>): Promise<void> {
    const message: KeyChange = { change_id: randomUUID(), ...change };
    try {
      const expected = await this.broadcast.consumerCount(this.names.apiInstancesQueue);
      await this.broadcast.send(this.names.authorityEvents, 'key.changed', message, { expected, timeoutMs: this.timeoutMs });
    } catch (error) {
      const detail = error instanceof BroadcastTimeoutError ? { expected: error.expected, acknowledged: error.acknowledged } : { error };
      this.logger.error('key change not confirmed by every api instance', { reason: change.reason, ...detail });
      throw new RpcError(
        'propagation_unconfirmed',
        'The change is saved, but not every API server confirmed it yet. Retry the action to confirm.',
      );
    }
  }

  async close(): Promise<void> {
    await this.broadcast.close();
  }
}
