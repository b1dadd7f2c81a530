import type pg from 'pg';
import { retryOnConflict } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PeriodicTask } from '@feedback/service-runtime';
import type { RecordedOutcome } from '../deliveries/attempt-store.js';

/** What one worker saw of one endpoint since its last flush. */
interface Seen {
  /** The latest success. */
  lastSuccess?: Date;
  /** The first failure after the latest success seen here. */
  firstFailure?: Date;
  /** Attempts and successes by hour (ISO time of the hour's start). */
  hours: Map<string, { attempts: number; succeeded: number }>;
}

const HOUR_MS = 3_600_000;

// One statement per flush, whatever the number of endpoints: the hourly counts grow, and each
// endpoint's health moves. `failing_since` is the first failure after the latest success: a
// success seen later than it clears it, and a failure older than the latest success starts none.
// An endpoint that only succeeds is written at most once a minute, for its last success.
const FLUSH_SQL = `
  WITH seen AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(endpoint_id uuid, last_success timestamptz, first_failure timestamptz)
  ), hours AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb) AS h(endpoint_id uuid, hour timestamptz, attempts int, succeeded int)
  ), counted AS (
    INSERT INTO webhooks.endpoint_attempt_counts (endpoint_id, hour, attempts, succeeded)
    SELECT h.endpoint_id, h.hour, h.attempts, h.succeeded FROM hours h
    JOIN webhooks.webhook_endpoints e ON e.id = h.endpoint_id
    ORDER BY h.endpoint_id, h.hour
    ON CONFLICT (endpoint_id, hour) DO UPDATE SET
      attempts = endpoint_attempt_counts.attempts + excluded.attempts,
      succeeded = endpoint_attempt_counts.succeeded + excluded.succeeded
  )
  UPDATE webhooks.webhook_endpoints e SET
    last_success_at = greatest(e.last_success_at, s.last_success),
    failing_since = CASE
      WHEN s.last_success IS NOT NULL AND (e.failing_since IS NULL OR e.failing_since <= s.last_success) THEN s.first_failure
      WHEN s.first_failure > coalesce(e.last_success_at, '-infinity') THEN least(e.failing_since, s.first_failure)
      ELSE e.failing_since
    END
  FROM seen s
  WHERE e.id = s.endpoint_id
    AND NOT (s.first_failure IS NULL AND e.failing_since IS NULL AND coalesce(e.last_success_at >= s.last_success - interval '1 minute', false))`;

export interface EndpointHealthOptions {
  pool: pg.Pool;
  logger: Logger;
  /** How often what was seen is written. Default: 5000. */
  flushMs?: number;
}

/**
 * Each endpoint's health, as the workers see their attempts: its last success, since when it
 * has failed without a success, and its attempts and successes per hour. Kept in memory and
 * written a few times a minute in one statement, so the delivery path gains no write of its own.
 * A worker that dies loses what it saw since its last flush: health is a summary, the history
 * the record.
 */
export class EndpointHealth {
  private seen = new Map<string, Seen>();
  private readonly task: PeriodicTask;

  constructor(private readonly options: EndpointHealthOptions) {
    this.task = new PeriodicTask({ name: 'endpoint health', intervalMs: options.flushMs ?? 5_000, logger: options.logger, run: () => this.flush() });
  }

  start(): void {
    this.task.start();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    await this.task.stop();
    await this.flush().catch((error: unknown) => this.options.logger.warn('endpoint health not written at shutdown', { error }));
  }

  /** Notes the outcomes a record statement took. */
  note(outcomes: readonly RecordedOutcome[]): void {
    for (const { endpointId, delivered, startedAt } of outcomes) {
      let seen = this.seen.get(endpointId);
      if (!seen) this.seen.set(endpointId, (seen = { hours: new Map() }));
      const hour = new Date(Math.floor(startedAt.getTime() / HOUR_MS) * HOUR_MS).toISOString();
      const counts = seen.hours.get(hour) ?? { attempts: 0, succeeded: 0 };
      counts.attempts += 1;
      if (delivered) counts.succeeded += 1;
      seen.hours.set(hour, counts);
      if (delivered) {
        if (!seen.lastSuccess || startedAt > seen.lastSuccess) seen.lastSuccess = startedAt;
        if (seen.firstFailure && seen.firstFailure <= startedAt) seen.firstFailure = undefined;
      } else if (!seen.lastSuccess || startedAt > seen.lastSuccess) {
        if (!seen.firstFailure || startedAt < seen.firstFailure) seen.firstFailure = startedAt;
      }
    }
  }

  /** Writes what was seen since the last flush; kept for the next one if the write fails. */
  async flush(): Promise<void> {
    if (this.seen.size === 0) return;
    const taken = this.seen;
    this.seen = new Map();
    const endpoints = [...taken.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    const seen = endpoints.map(([endpointId, s]) => ({
      endpoint_id: endpointId,
      last_success: s.lastSuccess?.toISOString() ?? null,
      first_failure: s.firstFailure?.toISOString() ?? null,
    }));
    const hours = endpoints.flatMap(([endpointId, s]) => [...s.hours].map(([hour, counts]) => ({ endpoint_id: endpointId, hour, ...counts })));
    try {
      // Two workers flushing the same endpoints at once may deadlock; PostgreSQL ends one, which runs again.
      await retryOnConflict(() => this.options.pool.query(FLUSH_SQL, [JSON.stringify(seen), JSON.stringify(hours)]));
    } catch (error) {
      for (const [endpointId, s] of taken) this.merge(endpointId, s);
      throw error;
    }
  }

  /** Puts back what a failed flush took, beside what was seen since. */
  private merge(endpointId: string, earlier: Seen): void {
    const now = this.seen.get(endpointId);
    if (!now) {
      this.seen.set(endpointId, earlier);
      return;
    }
    for (const [hour, counts] of earlier.hours) {
      const later = now.hours.get(hour) ?? { attempts: 0, succeeded: 0 };
      now.hours.set(hour, { attempts: later.attempts + counts.attempts, succeeded: later.succeeded + counts.succeeded });
    }
    if (earlier.lastSuccess && (!now.lastSuccess || earlier.lastSuccess > now.lastSuccess)) now.lastSuccess = earlier.lastSuccess;
    if (earlier.firstFailure && (!now.lastSuccess || earlier.firstFailure > now.lastSuccess) && (!now.firstFailure || earlier.firstFailure < now.firstFailure)) {
      now.firstFailure = earlier.firstFailure;
    }
  }
}
