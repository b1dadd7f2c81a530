import type pg from 'pg';
import { deleteInBatches } from '@feedback/database';

export interface IdempotencyKeyPruneOptions {
  /** How long a key and its answer are kept. */
  retentionHours: number;
  /** Keys one statement deletes. Default: 10000. */
  batchSize?: number;
  /** Aborted when the service stops: no further batch is started. */
  signal?: AbortSignal;
}

/**
 * Deletes Idempotency-Keys older than the retention, with the answers they replay (which name end
 * users): after it, the same key is a new request. A tombstone that erasure left goes a
 * retention after the erasure (which restarts its clock). A key is claimed and answered in one
 * transaction, so every key seen here is answered. Answers how many keys.
 */
export function pruneIdempotencyKeys(pool: pg.Pool, options: IdempotencyKeyPruneOptions): Promise<number> {
  return deleteInBatches(
    pool,
    {
      text: `DELETE FROM api.idempotency_records WHERE (app_id, key) IN (
               SELECT app_id, key FROM api.idempotency_records
               WHERE created_at < now() - make_interval(hours => $1)
               ORDER BY created_at LIMIT $2)`,
      values: [options.retentionHours],
    },
    options.batchSize ?? 10_000,
    options.signal,
  );
}
