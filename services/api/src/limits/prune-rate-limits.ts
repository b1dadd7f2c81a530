import type pg from 'pg';
import { deleteInBatches } from '@feedback/database';

/** Deletes request-limit counts whose window has ended (a row per address, account or key seen). Answers how many. */
export function pruneRateLimits(pool: pg.Pool, options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<number> {
  return deleteInBatches(
    pool,
    {
      text: `DELETE FROM api.rate_limits WHERE key IN (
               SELECT key FROM api.rate_limits WHERE expire < $1 ORDER BY expire LIMIT $2)`,
      values: [Date.now()],
    },
    options.batchSize ?? 10_000,
    options.signal,
  );
}
