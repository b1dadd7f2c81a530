import type { DomainEvent } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';

export interface OutboxRelayOptions {
  /** Events published per transaction. Default: 200. */
  batchSize?: number;
  /** How often to look for events written by other api instances. Default: 250. */
  pollIntervalMs?: number;
  /** Pause after a failed publish (broker down) before trying again. Default: 1000. */
  retryDelayMs?: number;
}

/** Any number for the advisory lock, the same in every api instance. */
const RELAY_LOCK = 0x6f7574626f78; // "outbox"

/**
 * Publishes outbox events to `domain.events` in the order they were written, each confirmed by
 * the broker before it is stamped published. One instance relays at a time (an advisory lock),
 * which keeps the order per record across instances. If the broker is down, events wait in the
 * table; nothing is lost, and nothing is published twice unless a crash falls between the
 * broker's confirm and the commit (consumers deduplicate by event id).
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wakeRequested = false;
  private stopped = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly publisher: ConfirmedPublisher,
    private readonly names: TopologyNames,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions = {},
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Called after a transaction wrote events, so they go out now instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wakeRequested = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async drain(): Promise<void> {
    let next = this.options.pollIntervalMs ?? 250;
    try {
      let published: number;
      do {
        this.wakeRequested = false;
        published = await this.publishBatch();
      } while (!this.stopped && (published === (this.options.batchSize ?? 200) || this.wakeRequested));
    } catch (error) {
      this.logger.warn('outbox relay could not publish; events stay in the outbox', { error });
      next = this.options.retryDelayMs ?? 1000;
    }
    this.schedule(next);
  }

  /** Publishes one batch in one transaction; returns how many events went out. */
  async publishBatch(): Promise<number> {
    return this.prisma.$transaction(
      async (tx) => {
        const [lock] = await tx.$queryRaw<Array<{ locked: boolean }>>`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS locked`;
        if (!lock?.locked) return 0; // another instance is relaying
        const events = await tx.outboxEvent.findMany({
          where: { publishedAt: null },
          orderBy: { position: 'asc' },
          take: this.options.batchSize ?? 200,
        });
        if (events.length === 0) return 0;
        // One channel keeps publish order; confirms are awaited together.
        await Promise.all(
          events.map((row) => {
            // Routed by event name; internal events (privacy.user_erased) travel the same way.
            const event = row.payload as unknown as Pick<DomainEvent, 'id' | 'event'>;
            return this.publisher.publish(this.names.domainEvents, row.eventType, event, { messageId: row.eventId });
          }),
        );
        await tx.outboxEvent.updateMany({
          where: { position: { in: events.map((row) => row.position) } },
          data: { publishedAt: new Date() },
        });
        return events.length;
      },
      { timeout: 30_000, maxWait: 5_000 },
    );
  }
}
