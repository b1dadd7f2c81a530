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

/** Longest wait between attempts to repair a broken channel. */
const MAX_REPAIR_DELAY_MS = 60_000;

/**
 * One connection per process that reconnects by itself. Channels made from it run their setup
 * again after every reconnect, so topology is declared anew and consumers resume.
 *
 * A channel the broker closes with an error (a declaration it refuses, a consumer timeout) is
 * logged and closes alone (unheard, amqplib would pass the error to the connection, which would
 * drop at once and, for an error that comes back at every setup, every second with every
 * consumer's messages in hand). A channel whose setup failed, or that closed without being closed
 * here, makes the broker unhealthy (readiness) until it is set up again, and the broker
 * reconnects to do that, backing off while it keeps failing (1 s, doubling to 60 s).
 */
export class Broker {
  /** Channels whose latest setup failed or that closed without being closed here. */
  private readonly brokenChannels = new Set<ChannelWrapper>();
  private readonly firstRepairDelayMs: number;
  private repairDelayMs: number;
  private repairTimer: NodeJS.Timeout | undefined;
  private connectedAt = 0;
  /** Channel setups running now: a reconnect would cut them short. */
  private setupsRunning = 0;
  private closed = false;

  private constructor(
    private readonly manager: AmqpConnectionManager,
    private readonly logger: Logger,
    reconnectSeconds: number,
  ) {
    this.firstRepairDelayMs = reconnectSeconds * 1000;
    this.repairDelayMs = this.firstRepairDelayMs;
    manager.on('connect', () => (this.connectedAt = Date.now()));
  }

  static connect(options: BrokerOptions): Broker {
    const logger = options.logger;
    const reconnectSeconds = options.reconnectSeconds ?? 1;
    const manager = amqp.connect([options.url], {
      heartbeatIntervalInSeconds: options.heartbeatSeconds ?? 5,
      reconnectTimeInSeconds: reconnectSeconds,
      // Nagle's algorithm off: amqplib leaves it on, and a small frame (a publish, a confirm, an
      // ack) then waits for the peer's delayed ACK (docs/decisions.md has the figures). The frames
      // of one turn still leave in one write: patches/amqplib@2.3.1.patch.
      connectionOptions: { noDelay: true, clientProperties: { connection_name: options.connectionName } },
    });
    manager.on('connect', () => logger.info('broker connected'));
    manager.on('disconnect', ({ err }) => logger.warn('broker disconnected', { error: err?.message }));
    manager.on('connectFailed', ({ err }) => logger.warn('broker connection failed', { error: err?.message }));
    manager.on('blocked', ({ reason }) => logger.warn('broker blocked publishing', { reason }));
    manager.on('unblocked', () => logger.info('broker unblocked publishing'));
    return new Broker(manager, logger, reconnectSeconds);
  }

  get connected(): boolean {
    return this.manager.isConnected();
  }

  /** Connected, and every channel set up and open: what readiness reports. */
  get healthy(): boolean {
    return this.connected && this.brokenChannels.size === 0;
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
    let closedHere = false;
    const wrapper: ChannelWrapper = this.manager.createChannel({
      name,
      confirm: true,
      json: false,
      setup: async (channel: ConfirmChannel) => {
        // Also fires when the whole connection drops; the repair then finds the channel set up
        // again by the reconnect, and does nothing.
        channel.once('close', () => {
          if (!closedHere) this.noteBroken(wrapper);
        });
        channel.on('error', (error: Error) => this.logger.warn('broker closed a channel', { channel: name, error: error.message }));
        this.setupsRunning += 1;
        try {
          await setup?.(channel);
        } catch (error) {
          // A channel closed under its setup (the connection dropped, or close() here) is set up
          // again by the reconnect, or not wanted any more.
          if (!closedHere && (error as Error).name !== 'IllegalOperationError') this.noteBroken(wrapper);
          throw error;
        } finally {
          this.setupsRunning -= 1;
        }
        this.brokenChannels.delete(wrapper);
      },
    });
    wrapper.on('error', (error: Error) => this.logger.error('channel setup failed', { channel: name, error }));
    // Emitted as close() begins, before the channel's own close event.
    wrapper.on('close', () => {
      closedHere = true;
      this.brokenChannels.delete(wrapper);
    });
    return wrapper;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.repairTimer);
    await this.manager.close();
  }

  private noteBroken(wrapper: ChannelWrapper): void {
    this.brokenChannels.add(wrapper);
    if (this.repairTimer || this.closed) return;
    this.repairTimer = setTimeout(() => this.repair(), this.repairDelayMs).unref();
  }

  /** Reconnects if a channel is still broken on a live connection (a dropped one reconnects by itself). */
  private repair(): void {
    this.repairTimer = undefined;
    if (this.closed) return;
    if (this.brokenChannels.size === 0) {
      this.repairDelayMs = this.firstRepairDelayMs;
      return;
    }
    // Just reconnected, or setups still running: a reconnect now would cut them short.
    const settled = this.setupsRunning === 0 && Date.now() - this.connectedAt >= this.firstRepairDelayMs;
    if (this.connected && settled) {
      const channels = [...this.brokenChannels].map((wrapper) => wrapper.name);
      this.logger.warn('broker channel not set up on a live connection; reconnecting to set it up again', { channels, retryInMs: this.repairDelayMs });
      // Closed under the manager, which reconnects as after any drop. (Its reconnect() takes the
      // connection's listeners off first: an error during the close would then end the process.)
      void this.manager.connection?.close().catch(() => undefined);
      this.repairDelayMs = Math.min(this.repairDelayMs * 2, MAX_REPAIR_DELAY_MS);
    }
    this.repairTimer = setTimeout(() => this.repair(), this.repairDelayMs).unref();
  }
}
