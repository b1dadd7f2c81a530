import type pg from 'pg';
import { withClient } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher, TopologyNames } from '@feedback/messaging';
import type { OutboxMetrics } from './outbox-metrics.js';

interface ClaimedEvent {
  position: string;
  event_id: string;
  event_type: string;
  payload: string;
}

export interface OutboxRelayOptions {
  /** Events published per transaction. Default: 200. */
  batchSize?: number;
  /** How often to look for events written by other api instances. Default: 250. */
  pollIntervalMs?: number;
  /** Pause after a failed publish, or while the broker connection is down, before trying again. Default: 1000. */
  retryDelayMs?: number;
  metrics?: OutboxMetrics;
}

/**
 * Any number for the advisory lock, the same in every api instance; held by a batch until it
 * commits. (Tests hold it to keep a running relay off events they arrange.)
 */
export const RELAY_LOCK = 0x6f7574626f78; // "outbox"

/**
 * Opens the batch's transaction, claims up to `batchSize` events and stamps them published, in one
 * round trip: the relay runs after every write, and each round trip is a wake-up of both
 * processes. The statements take no parameters, so they go as one simple query. The lock is taken
 * once for the SELECT (an InitPlan); without it the batch is empty. The stamp commits only once
 * the broker has confirmed the batch; if it does not, the transaction rolls back and the events
 * wait.
 *
 * Stamping at the claim, rather than after the publish, locks the claimed rows while they are
 * being published, in position order: an erasure that would withhold or rewrite one of them
 * (privacy/user-data.ts, which locks in the same order) waits for the commit and then finds it
 * published, instead of reporting it withheld while it goes out.
 *
 * The stamp need not wait for the disk (synchronous_commit off): lost in a database crash, it
 * only has the batch published again, which consumers recognise by event id. The events
 * themselves wait in the outbox durably, written by the transactions that made them.
 *
 * The claim walks the unpublished-events index in order (no bitmap or sequential scan), and
 * stamps in that order (no hash join, which could reorder rows), the order an erasure locks in.
 * Each stamp leaves the old row version and its index entry behind until VACUUM, and only an ordered
 * index scan marks such entries dead as it passes them, so the next claim skips them. A bitmap
 * scan, which the planner picks when its statistics are older than the table's growth, visits
 * every row published since the last VACUUM, on every claim: 0.44 ms per claim after 8,700 events
 * in the benchmark, 8 to 19 ms after 200,000, against 0.11 and 0.3 to 0.7 ms this way (measured
 * on the claim's SELECT alone). The dead entries' index pages are still read until VACUUM removes
 * them.
 *
 * A batch whose broker connection drops waits out the confirm timeout and rolls back, its rows
 * locked meanwhile; while the connection is known to be down, no batch starts (`drain`).
 */
const claimSql = (batchSize: number) => `
  BEGIN;
  SET LOCAL synchronous_commit = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_hashjoin = off;
  WITH claimed AS (
    UPDATE api.outbox_events o SET published_at = now()
    FROM (SELECT position FROM api.outbox_events
          WHERE published_at IS NULL AND (SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}))
          ORDER BY position
          LIMIT ${batchSize}) AS next
    -- Re-checked on a row another relay stamped after this statement's snapshot: skipped.
    WHERE o.position = next.position AND o.published_at IS NULL
    RETURNING o.position, o.event_id, o.event_type, o.payload::text AS payload
  )
  SELECT * FROM claimed ORDER BY position`;

/**
 * Publishes outbox events to `domain.events` in the order they were written, each confirmed by
 * the broker before its stamp commits. One instance relays at a time (an advisory lock),
 * which keeps the order per record across instances. If the broker is down, events wait in the
 * table; nothing is lost, and nothing is published twice unless a batch is confirmed only in part
 * (it is rolled back and published again whole) or a crash falls between the broker's confirm and
 * the commit (consumers deduplicate by event id).
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wakeRequested = false;
  private stopped = false;
  private readonly batchSize: number;
  /** Built once: the relay runs after every write. */
  private readonly claimBatchSql: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly publisher: ConfirmedPublisher,
    private readonly names: TopologyNames,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.claimBatchSql = claimSql(this.batchSize);
  }

  start(): void {
    this.run();
  }

  /**
   * Called after a transaction wrote events, so they go out now instead of at the next poll: at
   * once when the relay is idle, else straight after the batch in hand. (A zero-delay timer here
   * cost each event a millisecond.)
   */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wakeRequested = true;
    else this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private run(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.running = this.drain().finally(() => {
      this.running = undefined;
      // A wake that came as the last batch was ending found the relay still running.
      if (this.wakeRequested) this.run();
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  private async drain(): Promise<void> {
    // While the broker is away, a batch would only stamp its events, hold them and the lock for
    // the confirm timeout, and roll back: the events wait untouched instead.
    if (!this.publisher.connected) {
      this.wakeRequested = false; // the retry below covers it
      this.schedule(this.options.retryDelayMs ?? 1000);
      return;
    }
    let next = this.options.pollIntervalMs ?? 250;
    try {
      let published: number;
      do {
        this.wakeRequested = false;
        published = await this.publishBatch();
      } while (!this.stopped && (published === this.batchSize || this.wakeRequested));
    } catch (error) {
      this.options.metrics?.failures.inc();
      this.logger.warn('outbox relay could not publish; events stay in the outbox', { error });
      next = this.options.retryDelayMs ?? 1000;
    }
    this.schedule(next);
  }

  /**
   * Publishes one batch in one transaction of two round trips (the claim, then the commit once
   * the broker confirmed the batch); returns how many events went out.
   * Plain SQL: the relay runs after every write, and an ORM transaction cost more than the
   * publishing itself.
   */
  async publishBatch(): Promise<number> {
    // Held across the broker's confirms: withClient hears the connection's loss meanwhile, and
    // after any failure the pool closes the connection (a query that timed out may still be
    // running on it) and opens another.
    return withClient(this.pool, async (client) => {
      try {
        const results = (await client.query(this.claimBatchSql)) as unknown as Array<pg.QueryResult<ClaimedEvent>>;
        const { rows } = results[results.length - 1]!;
        if (rows.length === 0) {
          await client.query('COMMIT');
          return 0;
        }
        // One channel keeps publish order; confirms are awaited together. The payload is sent as
        // stored; routed by event name (internal events, privacy.user_erased, travel the same way).
        // Mandatory: an event no queue takes (the worker has not yet declared its queue, on a first
        // start) stays in the outbox instead of being confirmed and dropped.
        await Promise.all(
          rows.map((row) => this.publisher.publish(this.names.domainEvents, row.event_type, Buffer.from(row.payload), { messageId: row.event_id, mandatory: true })),
        );
        await client.query('COMMIT');
        this.options.metrics?.published.inc(rows.length);
        return rows.length;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}
