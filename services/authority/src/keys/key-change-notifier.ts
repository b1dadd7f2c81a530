import type { KeyChange } from '@feedback/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@feedback/logging';
import { AcknowledgedBroadcast, BroadcastTimeoutError, RpcError, declareExchanges } from '@feedback/messaging';
import type { Broker, TopologyNames } from '@feedback/messaging';
import type { ApiInstanceLeases } from './api-instances.js';

/**
 * Tells every api instance that keys changed, and returns only when each instance holding a
 * cache lease has dropped them. This is what makes "revoked" true everywhere by the time the
 * dashboard call returns.
 */
export class KeyChangeNotifier {
  private readonly broadcast: AcknowledgedBroadcast;

  constructor(
    broker: Broker,
    private readonly names: TopologyNames,
    private readonly logger: Logger,
    private readonly leases: ApiInstanceLeases,
    /** How long a change waits for every api instance to confirm it. Default: 3000. */
    readonly timeoutMs = 3000,
  ) {
    this.broadcast = new AcknowledgedBroadcast(broker, {
      name: 'key-change-notifier',
      replies: names.replies,
      setup: (channel) => declareExchanges(channel, names, ['authorityEvents']),
    });
  }

  async notify(change: Omit<KeyChange, 'change_id'>): Promise<void> {
    const message: KeyChange = { change_id: randomUUID(), ...change };
    try {
      const expectedReceivers = await this.leases.holders();
      await this.broadcast.send(this.names.authorityEvents, 'key.changed', message, { expectedReceivers, timeoutMs: this.timeoutMs });
    } catch (error) {
      const detail = error instanceof BroadcastTimeoutError ? { expected: error.expected, missing: error.missing } : { error };
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
