import type pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** What the relay counts as it works. */
export interface OutboxMetrics {
  published: Counter;
  failures: Counter;
}

/** Unpublished events counted at most this far: enough to alert on, cheap however long the backlog. */
const COUNTED_AT_MOST = 100_000;
/** A scrape never waits longer than this for the backlog (the gauges then keep their last values). */
const BACKLOG_READ_LIMIT_MS = 2000;

/**
 * The backlog, read in one statement shared by both gauges of a scrape: the oldest unpublished
 * event by position (the relay's own index), and a count that stops at COUNTED_AT_MOST. The two
 * statements of one simple query are one implicit transaction, so the time limit set for it ends
 * with it, and a statement it cancels leaves the connection as it was.
 */
const BACKLOG_SQL = `
  SELECT set_config('statement_timeout', '${BACKLOG_READ_LIMIT_MS}', true);
  SELECT (SELECT count(*) FROM (SELECT 1 FROM api.outbox_events WHERE published_at IS NULL LIMIT ${COUNTED_AT_MOST}) AS waiting)::int AS waiting,
         coalesce((SELECT extract(epoch FROM now() - created_at) FROM api.outbox_events
                   WHERE published_at IS NULL ORDER BY position LIMIT 1), 0)::float8 AS oldest_age`;

interface Backlog {
  waiting: number;
  oldestAge: number;
}

/**
 * The outbox for operators: events published and failed batches, counted by this instance, and
 * the backlog read from the table at each scrape (the same for every instance). Alert on the age
 * of the oldest unpublished event: events are waiting for the broker. A scrape while the database
 * is away or slow still answers, with the backlog as last read: the other metrics matter then.
 */
export function outboxMetrics(registry: Registry, pool: pg.Pool): OutboxMetrics {
  const registers = [registry];
  let last: Backlog = { waiting: 0, oldestAge: 0 };
  let reading: Promise<Backlog> | undefined;
  const backlog = (): Promise<Backlog> => {
    reading ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const read = pool.query(BACKLOG_SQL).then((results) => {
          const row = (results as unknown as Array<pg.QueryResult<{ waiting: number; oldest_age: number }>>)[1]!.rows[0]!;
          return { waiting: row.waiting, oldestAge: row.oldest_age };
        });
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('backlog read timed out')), BACKLOG_READ_LIMIT_MS)));
        last = await Promise.race([read, late]);
      } catch {
        // Kept as last read.
      } finally {
        clearTimeout(timer);
        reading = undefined;
      }
      return last;
    })();
    return reading;
  };
  new Gauge({
    name: 'feedback_outbox_unpublished_events',
    help: `Events written and not yet published to the broker (counted up to ${COUNTED_AT_MOST})`,
    registers,
    // Read from the table: each of an instance's processes reads the same.
    aggregator: 'max',
    async collect() {
      this.set((await backlog()).waiting);
    },
  });
  new Gauge({
    name: 'feedback_outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest event not yet published (0 when none waits)',
    registers,
    aggregator: 'max',
    async collect() {
      this.set((await backlog()).oldestAge);
    },
  });
  return {
    published: new Counter({ name: 'feedback_outbox_events_published_total', help: 'Events published to the broker by this instance', registers }),
    failures: new Counter({ name: 'feedback_outbox_publish_failures_total', help: 'Relay batches that could not be published (the events wait in the outbox)', registers }),
  };
}
