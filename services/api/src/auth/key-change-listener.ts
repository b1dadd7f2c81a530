import { keyChangeContract } from '@feedback/contracts';
import type { KeyChange } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { acknowledgeBroadcast, declareExchanges } from '@feedback/messaging';
import type { Broker, ChannelWrapper, TopologyNames } from '@feedback/messaging';

/**
 * Receives key changes from the authority for this api instance and acknowledges each one after
 * it took effect. It also holds this instance's place on the presence queue, so the authority
 * knows to wait for it. The key cache is trusted only while this listener is connected: after a
 * reconnect, changes may have been missed, so the cache starts empty.
 */
export class KeyChangeListener {
  private connectedChannel = false;
  private readonly channel: ChannelWrapper;

  constructor(
    private readonly broker: Broker,
    names: TopologyNames,
    private readonly logger: Logger,
    private readonly onChange: (change: KeyChange) => void,
    private readonly onReconnect: () => void,
  ) {
    this.channel = broker.channel('key-change-listener', async (channel) => {
      this.connectedChannel = false;
      this.onReconnect();
      await declareExchanges(channel, names);
      // Bind first, then announce presence: once counted, this instance hears every change.
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, names.authorityEvents, 'key.changed');
      await channel.consume(
        queue,
        (message) => {
          if (!message) return;
          try {
            this.onChange(keyChangeContract.parse(JSON.parse(message.content.toString('utf8'))));
            acknowledgeBroadcast(channel, message);
          } catch (error) {
            this.logger.error('key change message rejected', { error });
          }
        },
        { noAck: true },
      );
      await channel.assertQueue(names.apiInstancesQueue, { durable: true });
      await channel.consume(names.apiInstancesQueue, () => undefined, { noAck: true });
      this.connectedChannel = true;
    });
    this.channel.on('close', () => (this.connectedChannel = false));
  }

  /** True while changes are being received: only then may cached keys be used. */
  get listening(): boolean {
    return this.connectedChannel && this.broker.connected;
  }

  async close(): Promise<void> {
    this.connectedChannel = false;
    await this.channel.close();
  }
}
