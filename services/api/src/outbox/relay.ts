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
 * The claim: stamps up to `batchSize` events, found by walking the unpublished-events index in
 * position order. The positions are gathered first, once, into an array; the stamp then looks
 * each one up. A join of the two scans could be planned as a loop over the whole backlog, each
 * turn walking the index again: statistics taken while nothing waited said the backlog was empty.
 */
export const claimStatement = (batchSize: number) => `
  WITH claimed AS (
    UPDATE api.outbox_events o SET published_at = now()
    -- The lock is tried once, as an InitPlan: without it the batch is empty.
    WHERE o.position = ANY (ARRAY(
            SELECT position FROM api.outbox_events
            WHERE published_at IS NULL AND (SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}))
            ORDER BY position
            LIMIT ${batchSize}))
      -- Re-checked on a row another relay stamped after this statement's snapshot: skipped.
      AND o.published_at IS NULL
    RETURNING o.position, o.event_id, o.event_type, o.payload::text AS payload
  )
  SELECT * FROM claimed ORDER BY position`;

/**
 * The claim's planner settings: they keep it on the unpublished-events index, in position order,
 * the order an erasure locks in. Why, and what each saves, is in docs/decisions.md ("The delivery
 * hot path").
 */
export const CLAIM_SETTINGS = `
  SET LOCAL synchronous_commit = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_hashjoin = off;`;

/**
 * Opens the batch's transaction, then claims and stamps up to `batchSize` events in one round trip;
 * the stamp commits only once the broker has confirmed the batch, else the events wait.
 */
const claimSql = (batchSize: number) => `BEGIN;${CLAIM_SETTINGS}${claimStatement(batchSize)}`;

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
