import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withClient } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher } from '@feedback/messaging';
import { ATTEMPT_HEADER, MANUAL_HEADER } from '../queues/webhook-topology.js';
import type { WebhookQueueNames } from '../queues/webhook-topology.js';
import { isErasedPayloadSql } from './erased-payload.js';

export interface RecovererOptions {
  pool: pg.Pool;
  publisher: ConfirmedPublisher;
  queues: WebhookQueueNames;
  logger: Logger;
  /** Redeliveries one recovery has queued and not yet seen settle, at most. Default: 32. */
  inFlight?: number;
  /** How often running recoveries are looked at without being woken. Default: 1000. */
  tickMs?: number;
  /** How long a worker drives a recovery before another may take it over. Default: 30000. */
  leaseMs?: number;
}

// The attempts a recovery queued that have settled since: a delivery whose attempt count reached
// the one queued and is no longer pending (or that was withheld or deleted meanwhile). Counted
// on the recovery in the same statement.
const SETTLE_SQL = `
  WITH settled AS (
    SELECT i.position,
           CASE WHEN d.id IS NULL OR d.status = 'withheld' THEN 'skipped' WHEN d.status = 'delivered' THEN 'delivered' ELSE 'failed' END AS outcome
    FROM webhooks.recovery_items i LEFT JOIN webhooks.deliveries d ON d.id = i.delivery_id
    WHERE i.recovery_id = $1 AND i.state = 'sent'
      AND (d.id IS NULL OR d.status = 'withheld' OR (d.attempts >= i.attempt AND d.status <> 'pending'))
  ), marked AS (
    UPDATE webhooks.recovery_items i SET state = s.outcome FROM settled s
    WHERE i.recovery_id = $1 AND i.position = s.position AND i.state = 'sent'
    RETURNING s.outcome
  )
  UPDATE webhooks.recoveries r SET
    delivered = r.delivered + (SELECT count(*) FROM marked WHERE outcome = 'delivered'),
    failed = r.failed + (SELECT count(*) FROM marked WHERE outcome = 'failed'),
    skipped = r.skipped + (SELECT count(*) FROM marked WHERE outcome = 'skipped')
  WHERE r.id = $1
  RETURNING r.state, r.endpoint_id, (SELECT count(*)::int FROM webhooks.recovery_items WHERE recovery_id = $1 AND state = 'sent') AS in_flight,
            (SELECT count(*)::int FROM webhooks.recovery_items WHERE recovery_id = $1 AND state = 'waiting') AS waiting`;

// The next items, each delivery marked pending (a redelivery by hand's state) if it is still in a
// chosen status and not erased; the rest are skipped. The transaction holds the deliveries' rows
// until their attempts are queued and confirmed, as a redelivery by hand does.
const TAKE_SQL = `
  WITH next AS (
    SELECT position, delivery_id FROM webhooks.recovery_items
    WHERE recovery_id = $1 AND state = 'waiting' ORDER BY position LIMIT $2 FOR UPDATE
  ), marked AS (
    UPDATE webhooks.deliveries d SET status = 'pending', updated_at = now()
    FROM next, webhooks.recoveries r, webhooks.webhook_endpoints e
    WHERE r.id = $1 AND d.id = next.delivery_id AND d.endpoint_id = r.endpoint_id
      AND r.state = 'running' AND e.id = r.endpoint_id AND e.paused_at IS NULL
      AND d.status::text = ANY (r.statuses) AND NOT ${isErasedPayloadSql('d.payload')}
    RETURNING d.id, d.attempts
  )
  SELECT next.position, next.delivery_id, marked.attempts FROM next LEFT JOIN marked ON marked.id = next.delivery_id ORDER BY next.position`;

/**
 * Drives running recoveries, in whichever worker holds each one's lease: it queues a recovery's
 * deliveries as redeliveries by hand, `inFlight` at a time, and queues more as they settle. Each
 * goes through the deliver queue and the endpoint's slots like any attempt, with its own id, so a
 * recovery never sends a receiver more than its live traffic could. Its progress is in the
 * database: a worker that stops leaves its recoveries to another (at once when it stops cleanly,
 * once the lease ends when it dies), which goes on from the first item not yet queued.
 */
export class Recoverer {
  private readonly id = randomUUID();
  private readonly inFlight: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private stopped = false;

  constructor(private readonly options: RecovererOptions) {
    this.inFlight = options.inFlight ?? 32;
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  start(): void {
    this.schedule();
  }

  /** Looks at the recoveries now: one started here, or an attempt of one made. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenWhileRunning = true;
      return;
    }
    clearTimeout(this.timer);
    this.run();
  }

  /** Stops driving, and gives up this worker's leases so that another takes its recoveries over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.options.pool
      .query('UPDATE webhooks.recoveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [this.id])
      .catch((error: unknown) => this.options.logger.warn('recovery leases not given up at shutdown; they lapse', { error }));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.run(), this.options.tickMs ?? 1_000);
    this.timer.unref();
  }

  private run(): void {
    this.running = this.step()
      .catch((error: unknown) => {
        this.options.logger.warn('recoveries not driven this time; tried again shortly', { error });
      })
      .finally(() => {
        this.running = undefined;
        if (this.wokenWhileRunning && !this.stopped) {
          this.wokenWhileRunning = false;
          this.run();
        } else {
          this.schedule();
        }
      });
  }

  /** One look at every running recovery this worker holds, or may take over. */
  private async step(): Promise<void> {
    const { rows } = await this.options.pool.query<{ id: string }>(
      `UPDATE webhooks.recoveries SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::float8 / 1000)
       WHERE state = 'running' AND (lease_owner = $1 OR lease_until IS NULL OR lease_until < now())
       RETURNING id`,
      [this.id, this.leaseMs],
    );
    for (const { id } of rows) {
      if (this.stopped) return;
      await this.drive(id);
    }
  }

  private async drive(recoveryId: string): Promise<void> {
    const { pool, logger } = this.options;
    const { rows } = await pool.query<{ state: string; endpoint_id: string; in_flight: number; waiting: number }>(SETTLE_SQL, [recoveryId]);
    const now = rows[0];
    if (!now || now.state !== 'running') return;
    if (now.waiting === 0 && now.in_flight === 0) {
      await this.finish(recoveryId);
      return;
    }
    const room = this.inFlight - now.in_flight;
    if (room <= 0 || now.waiting === 0) return;
    await withClient(pool, async (client) => {
      await client.query('BEGIN');
      try {
        const taken = await client.query<{ position: number; delivery_id: string; attempts: number | null }>(TAKE_SQL, [recoveryId, room]);
        const queued = taken.rows.filter((row) => row.attempts !== null);
        await Promise.all(
          queued.map((row) =>
            this.options.publisher.sendToQueue(this.options.queues.deliver, { delivery_id: row.delivery_id }, {
              messageId: row.delivery_id,
              headers: { [ATTEMPT_HEADER]: row.attempts! + 1, [MANUAL_HEADER]: true },
            }),
          ),
        );
        await client.query(
          `UPDATE webhooks.recovery_items i SET state = CASE WHEN t.attempt IS NULL THEN 'skipped' ELSE 'sent' END, attempt = t.attempt
           FROM unnest($2::int[], $3::int[]) AS t(position, attempt)
           WHERE i.recovery_id = $1 AND i.position = t.position`,
          [recoveryId, taken.rows.map((row) => row.position), taken.rows.map((row) => (row.attempts === null ? null : row.attempts + 1))],
        );
        const skipped = taken.rows.length - queued.length;
        if (skipped > 0) await client.query('UPDATE webhooks.recoveries SET skipped = skipped + $2 WHERE id = $1', [recoveryId, skipped]);
        await client.query('COMMIT');
      } catch (error) {
        // Nothing queued counts: a message confirmed before the failure finds its delivery not
        // pending, and is dropped (the deliver queue's check of a redelivery by hand).
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    logger.debug('recovery queued more redeliveries', { recoveryId });
  }

  private async finish(recoveryId: string): Promise<void> {
    const { rows } = await this.options.pool.query<{ app_id: number; endpoint_id: string; name: string; delivered: number; failed: number; skipped: number }>(
      `WITH ended AS (
         UPDATE webhooks.recoveries SET state = 'finished', ended_at = now(), lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND state = 'running' RETURNING app_id, endpoint_id, delivered, failed, skipped
       )
       SELECT ended.*, e.name FROM ended JOIN webhooks.webhook_endpoints e ON e.id = ended.endpoint_id`,
      [recoveryId],
    );
    const ended = rows[0];
    if (!ended) return;
    await this.options.pool.query(
      `INSERT INTO webhooks.endpoint_audit_entries (id, app_id, endpoint_id, endpoint_name, action, actor_name, detail)
       VALUES (gen_random_uuid(), $1, $2, $3, 'recovery_finished', NULL, $4)`,
      [ended.app_id, ended.endpoint_id, ended.name, `${ended.delivered} delivered, ${ended.failed} failed, ${ended.skipped} skipped.`],
    );
    this.options.logger.info('recovery finished', { recoveryId, delivered: ended.delivered, failed: ended.failed, skipped: ended.skipped });
  }
}

/** Deletes recoveries ended more than `retentionDays` ago, with their items; answers how many. */
export async function pruneEndedRecoveries(pool: pg.Pool, retentionDays: number): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM webhooks.recoveries WHERE ended_at < now() - make_interval(days => $1)', [retentionDays]);
  return rowCount ?? 0;
}
