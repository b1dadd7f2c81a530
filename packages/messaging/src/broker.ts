import amqp from 'amqp-connection-manager';
import type { AmqpConnectionManager, ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel } from 'amqplib';
import type { Logger } from '@feedback/logging';

export interface BrokerOptions {
  /** amqp:// or amqps:// URL of the broker. */
  url: string;
  /** Shown in the broker's connection list, to tell services apart. */
  connectionName: string;
  logger: Logger;
  /** Heartbeat interval, so a dead connection is noticed. Default: 5. */
  heartbeatSeconds?: number;
  /** Delay between reconnect attempts. Default: 1. */
  reconnectSeconds?: number;
}

/** Runs on every (re)connection of a channel: declare topology, start consumers. */
export type ChannelSetup = (channel: ConfirmChannel) => Promise<void>;

/**
 * One connection per process that reconnects by itself. Channels made from it run their setup
 * again after every reconnect, so topology is declared anew and consumers resume.
 */
export class Broker {
  private constructor(
    private readonly manager: AmqpConnectionManager,
    private readonly logger: Logger,
  ) {}

  static connect(options: BrokerOptions): Broker {
    const logger = options.logger;
    const manager = amqp.connect([options.url], {
      heartbeatIntervalInSeconds: options.heartbeatSeconds ?? 5,
      reconnectTimeInSeconds: options.reconnectSeconds ?? 1,
      connectionOptions: { clientProperties: { connection_name: options.connectionName } },
    });
    manager.on('connect', () => logger.info('broker connected'));
    manager.on('disconnect', ({ err }) => logger.warn('broker disconnected', { error: err?.message }));
    manager.on('connectFailed', ({ err }) => logger.warn('broker connection failed', { error: err?.message }));
    manager.on('blocked', ({ reason }) => logger.warn('broker blocked publishing', { reason }));
    return new Broker(manager, logger);
  }

  get connected(): boolean {
    return this.manager.isConnected();
  }

  /** Resolves once connected, or rejects after `timeoutMs`. */
  async waitUntilConnected(timeoutMs: number): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.manager.off('connect', onConnect);
        reject(new Error(`broker not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const onConnect = () => {
        clearTimeout(timer);
        resolve();
      };
      this.manager.once('connect', onConnect);
    });
  }

  /** A confirm channel whose `setup` runs on every reconnect. */
  channel(name: string, setup?: ChannelSetup): ChannelWrapper {
    const wrapper = this.manager.createChannel({ name, confirm: true, json: false, setup });
    wrapper.on('error', (error: Error) => this.logger.error('channel setup failed', { channel: name, error }));
    return wrapper;
  }

  async close(): Promise<void> {
    await this.manager.close();
  }
}
