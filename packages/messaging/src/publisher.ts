import type { ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Broker, ChannelSetup } from './broker.js';

/** A mandatory message no queue took: the broker confirmed it, and dropped it. */
export class UnroutableMessageError extends Error {
  override readonly name = 'UnroutableMessageError';
  readonly code = 'unroutable';
  constructor(exchange: string, routingKey: string) {
    super(`No queue is bound to take ${routingKey} from ${exchange || 'the default exchange'}: is its consumer's topology declared?`);
  }
}

/** Our header telling a returned message apart from the others published on the channel. */
const RETURN_TAG_HEADER = 'x-feedback-publish-tag';

export interface PublishOptions {
  /** Broker-level message id; consumers use it to recognise redeliveries. */
  messageId?: string;
  headers?: Record<string, unknown>;
  /** How long to wait for the broker's confirm. Default: the publisher's `timeoutMs`. */
  timeoutMs?: number;
  /**
   * Fail with UnroutableMessageError when no queue takes the message, rather than have the broker
   * drop it: for messages whose loss nobody would notice (an event before its consumer's queue
   * exists, a retry whose queue was deleted).
   */
  mandatory?: boolean;
  /**
   * The message's own time to live, in ms. In a queue with a TTL of its own, the shorter one holds.
   * A queue lets a message expire only from its head: behind one that expires later, it waits.
   */
  expirationMs?: number;
}

/**
 * Publishes persistent JSON messages and resolves only when the broker has confirmed them, so a
 * caller that marks something "sent" after `publish` never loses it. While the connection is
 * down, messages wait in memory until it returns or the timeout expires.
 */
export class ConfirmedPublisher {
  private readonly channel: ChannelWrapper;
  /** Tags of mandatory messages the broker returned; it returns a message before confirming it. */
  private readonly returned = new Set<string>();
  private nextTag = 0;

  constructor(
    private readonly broker: Broker,
    private readonly options: {
      name: string;
      /** Declares the exchanges this publisher uses; runs on every reconnect. */
      setup?: ChannelSetup;
      /** Default confirm timeout. Default: 5000. */
      timeoutMs?: number;
    },
  ) {
    this.channel = broker.channel(options.name, async (channel: ConfirmChannel) => {
      channel.on('return', (message: ConsumeMessage) => {
        const tag = message.properties.headers?.[RETURN_TAG_HEADER];
        if (typeof tag === 'string') this.returned.add(tag);
      });
      await options.setup?.(channel);
    });
  }

  /** Whether the broker connection is up now: while it is not, a publish waits out its timeout. */
  get connected(): boolean {
    return this.broker.connected;
  }

  /** `body` is serialised as JSON; a Buffer is taken as JSON already serialised, and sent as it is. */
  async publish(exchange: string, routingKey: string, body: unknown, options: PublishOptions = {}): Promise<void> {
    // The broker would close the channel, every publish on it with it, over an expiration it cannot read.
    if (options.expirationMs !== undefined && !Number.isFinite(options.expirationMs)) throw new TypeError(`expirationMs must be a finite number of ms (was ${options.expirationMs})`);
    const tag = options.mandatory ? String((this.nextTag += 1)) : undefined;
    try {
      await this.channel.publish(exchange, routingKey, Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body)), {
        persistent: true,
        contentType: 'application/json',
        messageId: options.messageId,
        headers: tag === undefined ? options.headers : { ...options.headers, [RETURN_TAG_HEADER]: tag },
        mandatory: tag !== undefined,
        expiration: options.expirationMs === undefined ? undefined : String(Math.max(0, Math.round(options.expirationMs))),
        timeout: options.timeoutMs ?? this.options.timeoutMs ?? 5000,
      });
    } catch (error) {
      if (tag !== undefined) this.returned.delete(tag);
      throw error;
    }
    if (tag !== undefined && this.returned.delete(tag)) throw new UnroutableMessageError(exchange, routingKey);
  }

  /**
   * Sends straight to a queue (through the default exchange), confirmed like publish, and
   * mandatory unless told otherwise: a queue named and missing is an error, not a silent loss.
   */
  async sendToQueue(queue: string, body: unknown, options: PublishOptions = {}): Promise<void> {
    await this.publish('', queue, body, { mandatory: true, ...options });
  }

  async close(): Promise<void> {
    await this.channel.close();
  }
}
