import { keyChangeContract } from '@feedback/contracts';
import type { KeyChange } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { acknowledgeBroadcast, declareExchanges } from '@feedback/messaging';
import type { Broker, ChannelWrapper, TopologyNames } from '@feedback/messaging';

/**
 * Receives key changes from the authority for this api instance and acknowledges each one, with
 * the instance id, after it took effect. After a reconnect, changes may have been missed while
 * away, so `onReconnect` empties the cache first.
 */
export class KeyChangeListener {
  private readonly channel: ChannelWrapper;
  /** The server-named queue of the current setup (a new one after each): for tests and diagnostics. */
  queue: string | undefined;
  /** Whether changes are heard now: from the consumer's start until the next setup begins. */
  listening = false;

  constructor(
    broker: Broker,
    names: TopologyNames,
    private readonly instanceId: string,
    private readonly logger: Logger,
    private readonly onChange: (change: KeyChange) => void,
    private readonly onReconnect: () => void,
  ) {
    this.channel = broker.channel('key-change-listener', async (channel) => {
      this.listening = false;
      channel.once('close', () => (this.listening = false));
      this.onReconnect();
      await declareExchanges(channel, names, ['authorityEvents']);
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, names.authorityEvents, 'key.changed');
      this.queue = queue;
      await channel.consume(
        queue,
        (message) => {
          if (!message) {
            // The broker cancelled this consumer (its queue deleted, say) and left the channel
            // open: closed here, it counts as broken (not ready) and is set up again with a new
            // queue, emptying the cache, instead of missing every change from now on.
            this.logger.warn('the broker cancelled the key-change consumer; setting it up again');
            void channel.close().catch(() => undefined);
            return;
          }
          try {
            this.onChange(keyChangeContract.parse(JSON.parse(message.content.toString('utf8'))));
            acknowledgeBroadcast(channel, message, this.instanceId, names.replies);
          } catch (error) {
            this.logger.error('key change message rejected', { error });
          }
        },
        { noAck: true },
      );
      this.listening = true;
    });
  }

  async close(): Promise<void> {
    await this.channel.close();
  }
}
