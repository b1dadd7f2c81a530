import type pg from 'pg';

export interface DeliveryHistoryPruneOptions {
  /** How long a settled delivery's history is kept after its last change. */
  retentionDays: number;
  /** Rows one statement deletes. Default: 1000 deliveries (with their attempts), 10000 received events. */
  batchSize?: number;
}

/**
 * Deletes settled deliveries (delivered, abandoned, withheld) whose last change is older than the
 * retention, their attempts with them (the foreign key cascades): the history an endpoint shows,
 * and payloads naming end users, are not kept for ever. A delivery still pending or retrying is
 * kept, however old. Each endpoint's oldest deliveries are found through its (endpoint, created)
 * index, so the hot table needs no index of its own for this. Answers how many deliveries.
 */
export async function pruneDeliveries(pool: pg.Pool, options: DeliveryHistoryPruneOptions): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `WITH settled AS (
         SELECT d.id FROM webhooks.webhook_endpoints e
         CROSS JOIN LATERAL (
           SELECT id FROM webhooks.deliveries
           WHERE endpoint_id = e.id
             AND created_at < now() - make_interval(days => $1)
             AND updated_at < now() - make_interval(days => $1)
             AND status IN ('delivered', 'abandoned', 'withheld')
           ORDER BY created_at
           LIMIT $2) d
         LIMIT $2)
       DELETE FROM webhooks.deliveries WHERE id IN (SELECT id FROM settled)`,
      [options.retentionDays, batchSize],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return deleted;
  }
}

/**
 * Deletes the record that an event was received (what keeps fan-out to one delivery per endpoint
 * when the broker gives an event again) once it is older than the retention: the broker gives an
 * event again within moments, not weeks, and the deliveries' own (event, endpoint) key still
 * stands while a delivery is kept. Answers how many events.
 */
export async function pruneReceivedEvents(pool: pg.Pool, options: DeliveryHistoryPruneOptions): Promise<number> {
  const batchSize = options.batchSize ?? 10_000;
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM webhooks.received_events WHERE event_id IN (
         SELECT event_id FROM webhooks.received_events
         WHERE received_at < now() - make_interval(days => $1)
         ORDER BY received_at LIMIT $2)`,
      [options.retentionDays, batchSize],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return deleted;
  }
}
