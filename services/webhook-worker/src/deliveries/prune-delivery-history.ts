import type pg from 'pg';
import { deleteInBatches } from '@feedback/database';

export interface DeliveryHistoryPruneOptions {
  /** How long a settled delivery's history is kept after its last change. */
  retentionDays: number;
  /** Rows one statement deletes. Default: 1000 deliveries (with their attempts), 10000 received events. */
  batchSize?: number;
  /** Aborted when the service stops: no further batch is started. */
  signal?: AbortSignal;
}

/**
 * Deletes settled deliveries (delivered, abandoned, withheld, cancelled) whose last change is older than the
 * retention, their attempts with them (the foreign key cascades): the history an endpoint shows,
 * and payloads naming end users, are not kept for ever. A delivery still pending or retrying is
 * kept, however old. Each endpoint's oldest deliveries are found through its (endpoint, created)
 * index, so the hot table needs no index of its own for this. Answers how many deliveries.
 */
export function pruneDeliveries(pool: pg.Pool, options: DeliveryHistoryPruneOptions): Promise<number> {
  return deleteInBatches(
    pool,
    {
      text: `WITH settled AS (
               SELECT d.id FROM webhooks.webhook_endpoints e
               CROSS JOIN LATERAL (
                 SELECT id FROM webhooks.deliveries
                 WHERE endpoint_id = e.id
                   AND created_at < now() - make_interval(days => $1)
                   AND updated_at < now() - make_interval(days => $1)
                   AND status IN ('delivered', 'abandoned', 'withheld', 'cancelled', 'held')
                 ORDER BY created_at
                 LIMIT $2) d
               LIMIT $2)
             -- Checked again on the row deleted: a redelivery by hand may have marked it pending
             -- meanwhile (it holds the row locked while it queues the attempt; the delete waits,
             -- then sees the row as committed).
             DELETE FROM webhooks.deliveries d USING settled s
             WHERE d.id = s.id
               AND d.updated_at < now() - make_interval(days => $1)
               AND d.status IN ('delivered', 'abandoned', 'withheld', 'cancelled', 'held')`,
      values: [options.retentionDays],
    },
    options.batchSize ?? 1000,
    options.signal,
  );
}

/**
 * Deletes the note that an event was received once it is older than the retention. The note is
 * what makes fan-out of an event the broker gives again go only to the endpoints that existed when
 * it was first received; the broker gives an event again within moments (a worker died holding
 * it), not weeks. Should it come after its note is gone, it is fanned out as new: a delivery still
 * kept is not made twice (the deliveries' (event, endpoint) key), but an endpoint created since,
 * or one whose delivery was pruned too, gets it. Answers how many events.
 */
export function pruneReceivedEvents(pool: pg.Pool, options: DeliveryHistoryPruneOptions): Promise<number> {
  return deleteInBatches(
    pool,
    {
      text: `DELETE FROM webhooks.received_events WHERE event_id IN (
               SELECT event_id FROM webhooks.received_events
               WHERE received_at < now() - make_interval(days => $1)
               ORDER BY received_at LIMIT $2)`,
      values: [options.retentionDays],
    },
    options.batchSize ?? 10_000,
    options.signal,
  );
}
