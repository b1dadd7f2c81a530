import type pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** What the relay counts as it works. */
export interface OutboxMetrics {
  published: Counter;
  failures: Counter;
}

/**
 * The outbox for operators: events published and failed batches, counted by this instance, and
 * the backlog read from the table at each scrape (the same for every instance). Alert on the age
 * of the oldest unpublished event: events are waiting for the broker.
 */
export function outboxMetrics(registry: Registry, pool: pg.Pool): OutboxMetrics {
  const registers = [registry];
  new Gauge({
    name: 'feedback_outbox_unpublished_events',
    help: 'Events written and not yet published to the broker',
    registers,
    async collect() {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM api.outbox_events WHERE published_at IS NULL');
      this.set(rows[0]!.n);
    },
  });
  new Gauge({
    name: 'feedback_outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest event not yet published (0 when none waits)',
    registers,
    async collect() {
      const { rows } = await pool.query<{ age: number }>(
        'SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age FROM api.outbox_events WHERE published_at IS NULL',
      );
      this.set(rows[0]!.age);
    },
  });
  return {
    published: new Counter({ name: 'feedback_outbox_events_published_total', help: 'Events published to the broker by this instance', registers }),
    failures: new Counter({ name: 'feedback_outbox_publish_failures_total', help: 'Relay batches that could not be published (the events wait in the outbox)', registers }),
  };
}
