import { randomUUID } from 'node:crypto';
import type { ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Broker, ChannelSetup } from './broker.js';

/** On a broadcast: the exchange its acknowledgements go to, routed by `replyTo`. */
const REPLY_EXCHANGE_HEADER = 'x-feedback-reply-exchange';

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
 * (by id) has acknowledged it, so the sender knows it took effect everywhere. Acknowledgements
 * come to an exclusive queue of this sender's, through the `replies` exchange: direct reply-to
 * would need the receivers to write to the default exchange, which reaches every queue by name.
 */
export class AcknowledgedBroadcast {
  private readonly waiting = new Map<string, { missing: Set<string>; done: () => void }>();
  private readonly channel: ChannelWrapper;
  /** This sender's acknowledgement queue, named by the server anew at each setup. */
  private replyQueue: string | undefined;

  constructor(
    broker: Broker,
    private readonly options: { name: string; replies: string; setup?: ChannelSetup },
  ) {
    this.channel = broker.channel(options.name, async (channel) => {
      await options.setup?.(channel);
      await channel.assertExchange(options.replies, 'direct', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, options.replies, queue);
      await channel.consume(queue, (message) => message && this.onAck(message), { noAck: true });
      this.replyQueue = queue;
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
      // The acknowledgement queue exists once the channel is set up; until then, nothing can be sent.
      if (this.replyQueue === undefined) await withTimeout(this.channel.waitForConnect(), options.timeoutMs);
      await this.channel.publish(exchange, routingKey, Buffer.from(JSON.stringify(body)), {
        correlationId,
        replyTo: this.replyQueue,
        headers: { [REPLY_EXCHANGE_HEADER]: this.options.replies },
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

/** Rejects after `ms` unless `promise` settles first. */
async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`not connected within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A receiver's side: tells the broadcaster this message has taken effect at `receiver`. The
 * acknowledgement goes through `replies`, the exchange this receiver's login may write to; a
 * broadcast naming another exchange is not acknowledged.
 */
export function acknowledgeBroadcast(channel: ConfirmChannel, message: ConsumeMessage, receiver: string, replies: string): void {
  const replyTo = message.properties.replyTo as string | undefined;
  if (!replyTo || message.properties.headers?.[REPLY_EXCHANGE_HEADER] !== replies) return;
  channel.publish(replies, replyTo, Buffer.from(JSON.stringify({ receiver })), {
    correlationId: message.properties.correlationId as string,
  });
}
