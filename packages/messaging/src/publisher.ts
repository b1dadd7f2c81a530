import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Broker, ChannelSetup } from './broker.js';

export interface PublishOptions {
  /** Broker-level message id; consumers use it to recognise redeliveries. */
  messageId?: string;
  headers?: Record<string, unknown>;
  /** How long to wait for the broker's confirm. Default: the publisher's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * Publishes persistent JSON messages and resolves only when the broker has confirmed them, so a
 * caller that marks something "sent" after `publish` never loses it. While the connection is
 * down, messages wait in memory until it returns or the timeout expires.
 */
export class ConfirmedPublisher {
  private readonly channel: ChannelWrapper;

  constructor(
    broker: Broker,
    private readonly options: {
      name: string;
      /** Declares the exchanges this publisher uses; runs on every reconnect. */
      setup?: ChannelSetup;
      /** Default confirm timeout. Default: 5000. */
      timeoutMs?: number;
    },
  ) {
    this.channel = broker.channel(options.name, options.setup);
  }

  /** `body` is serialised as JSON; a Buffer is taken as JSON already serialised, and sent as it is. */
  async publish(exchange: string, routingKey: string, body: unknown, options: PublishOptions = {}): Promise<void> {
    await this.channel.publish(exchange, routingKey, Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body)), {
      persistent: true,
      contentType: 'application/json',
      messageId: options.messageId,
      headers: options.headers,
      timeout: options.timeoutMs ?? this.options.timeoutMs ?? 5000,
    });
  }

  /** Sends straight to a queue (through the default exchange), confirmed like publish. */
  async sendToQueue(queue: string, body: unknown, options: PublishOptions = {}): Promise<void> {
    await this.publish('', queue, body, options);
  }

  async close(): Promise<void> {
    await this.channel.close();
  }
}
