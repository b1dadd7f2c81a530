import type pg from 'pg';
import { deleteInBatches } from '@feedback/database';

export interface OutboxPruneOptions {
  /** How long a published event stays in the outbox. */
  retentionHours: number;
  /** Rows one statement deletes, so no prune holds many locks or one long transaction. Default: 10000. */
  batchSize?: number;
  /** Aborted when the service stops: no further batch is started. */
  signal?: AbortSignal;
}

/**
 * Deletes published outbox events once they are older than the retention: the outbox is the way
 * to the broker, not a history, and its payloads hold end users' names and texts. An unpublished
 * event is never deleted, however old (the broker may have been away). Answers how many events.
 */
export async function pruneOutbox(pool: pg.Pool, options: OutboxPruneOptions): Promise<number> {
  const hours = options.retentionHours;
  // Events are published in position order, so the old ones come first: the scan stops at the
  // first event that is recent or unpublished, and reads only what it is about to delete.
  const { rows } = await pool.query<{ boundary: string | null }>(
    `SELECT coalesce(
       (SELECT position FROM api.outbox_events
        WHERE published_at IS NULL OR published_at >= now() - make_interval(hours => $1)
        ORDER BY position LIMIT 1),
       (SELECT max(position) + 1 FROM api.outbox_events)) AS boundary`,
    [hours],
  );
  const boundary = rows[0]?.boundary;
  if (boundary === null || boundary === undefined) return 0;
  // The age is checked again row by row: an event committed since the boundary was found, with a
  // lower position, is unpublished and stays.
  return deleteInBatches(
    pool,
    {
      text: `DELETE FROM api.outbox_events WHERE position IN (
               SELECT position FROM api.outbox_events
               WHERE position < $1 AND published_at < now() - make_interval(hours => $2)
               ORDER BY position LIMIT $3)`,
      values: [boundary, hours],
    },
    options.batchSize ?? 10_000,
    options.signal,
  );
}
