import { randomUUID } from 'node:crypto';
import type { ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Broker, ChannelSetup } from './broker.js';

const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';

/** Some expected receivers did not acknowledge within the time limit. */
export class BroadcastTimeoutError extends Error {
  override readonly name = 'BroadcastTimeoutError';
  readonly code = 'broadcast_timeout';
  constructor(
    readonly expected: number,
    readonly missing: readonly string[],
  ) {
    super(`${missing.length} of ${expected} receivers did not acknowledge in time`);
  }
}

/**
 * Publishes a message that many receivers get, and resolves once each of the expected receivers
 * (by id) has acknowledged it over direct reply-to, so the sender knows it took effect everywhere.
 */
export class AcknowledgedBroadcast {
  private readonly waiting = new Map<string, { missing: Set<string>; done: () => void }>();
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
    try {
      entry.missing.delete(String((JSON.parse(message.content.toString('utf8')) as { receiver?: unknown }).receiver));
    } catch {
      return; // not an acknowledgement of ours
    }
    if (entry.missing.size === 0) entry.done();
  }

  async send(
    exchange: string,
    routingKey: string,
    body: unknown,
    options: { expectedReceivers: readonly string[]; timeoutMs: number },
  ): Promise<void> {
    const correlationId = randomUUID();
    const missing = new Set(options.expectedReceivers);
    const acknowledged = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(correlationId);
        reject(new BroadcastTimeoutError(options.expectedReceivers.length, [...missing]));
      }, options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(correlationId);
        resolve();
      };
      this.waiting.set(correlationId, { missing, done });
      if (missing.size === 0) done();
    });
    // A publish that fails ends the wait (its timer would otherwise reject a promise nobody
    // awaits any more, which stops the process).
    acknowledged.catch(() => undefined);
    try {
      await this.channel.publish(exchange, routingKey, Buffer.from(JSON.stringify(body)), {
        correlationId,
        replyTo: DIRECT_REPLY_TO,
        contentType: 'application/json',
        persistent: false,
        timeout: options.timeoutMs,
      });
    } catch (error) {
      this.waiting.get(correlationId)?.done();
      throw error;
    }
    await acknowledged;
  }

  async close(): Promise<void> {
    await this.channel.close();
  }
}

/** A receiver's side: tells the broadcaster this message has taken effect at `receiver`. */
export function acknowledgeBroadcast(channel: ConfirmChannel, message: ConsumeMessage, receiver: string): void {
  if (!message.properties.replyTo) return;
  channel.sendToQueue(message.properties.replyTo as string, Buffer.from(JSON.stringify({ receiver })), {
    correlationId: message.properties.correlationId as string,
  });
}
