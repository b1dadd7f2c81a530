import { randomUUID } from 'node:crypto';
import type { ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Broker, ChannelSetup } from './broker.js';

const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';

/** Fewer receivers acknowledged than were expected within the time limit. */
export class BroadcastTimeoutError extends Error {
  override readonly name = 'BroadcastTimeoutError';
  readonly code = 'broadcast_timeout';
  constructor(
    readonly expected: number,
    readonly acknowledged: number,
  ) {
    super(`${acknowledged} of ${expected} receivers acknowledged in time`);
  }
}

/**
 * Publishes a message that many receivers get, and resolves once `expected` of them have
 * acknowledged it (over direct reply-to), so the sender knows the message took effect everywhere.
 */
export class AcknowledgedBroadcast {
  private readonly waiting = new Map<string, { count: number; expected: number; done: () => void }>();
  private readonly channel: ChannelWrapper;

  constructor(broker: Broker, options: { name: string; setup?: ChannelSetup }) {
    this.channel = broker.channel(options.name, async (channel) => {
      await options.setup?.(channel);
      await channel.consume(DIRECT_REPLY_TO, (message) => message && this.onAck(message), { noAck: true });
    });
  }

  private onAck(message: ConsumeMessage): void {
    const entry = this.waiting.get(message.properties.correlationId as string);
    if (!entry) return;
    entry.count += 1;
    if (entry.count >= entry.expected) entry.done();
  }

  /** Consumers on `queue` right now (for a queue whose consumers stand for live receivers). */
  async consumerCount(queue: string): Promise<number> {
    return (await this.channel.checkQueue(queue)).consumerCount;
  }

  async send(
    exchange: string,
    routingKey: string,
    body: unknown,
    options: { expected: number; timeoutMs: number },
  ): Promise<void> {
    const correlationId = randomUUID();
    const acknowledged = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const entry = this.waiting.get(correlationId);
        this.waiting.delete(correlationId);
        reject(new BroadcastTimeoutError(options.expected, entry?.count ?? 0));
      }, options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(correlationId);
        resolve();
      };
      this.waiting.set(correlationId, { count: 0, expected: options.expected, done });
      if (options.expected <= 0) done();
    });
    await this.channel.publish(exchange, routingKey, Buffer.from(JSON.stringify(body)), {
      correlationId,
      replyTo: DIRECT_REPLY_TO,
      contentType: 'application/json',
      persistent: false,
      timeout: options.timeoutMs,
    });
    await acknowledged;
  }

  async close(): Promise<void> {
    await this.channel.close();
  }
}

/** A receiver's side: tells the broadcaster this message has taken effect here. */
export function acknowledgeBroadcast(channel: ConfirmChannel, message: ConsumeMessage): void {
  if (!message.properties.replyTo) return;
  channel.sendToQueue(message.properties.replyTo as string, Buffer.from('{}'), {
    correlationId: message.properties.correlationId as string,
  });
}
