/** Where the statement runs: a `pg.Pool`, or a service's Prisma client through `$executeRawUnsafe`. */
export interface StatementRunner {
  query(text: string, values: unknown[]): Promise<{ rowCount: number | null }>;
}

/**
 * Runs a DELETE that takes at most `batchSize` rows (its last parameter) again until it takes
 * fewer, so that clearing a large backlog never holds many locks or one long transaction; stops
 * early, between batches, once `signal` is aborted. Answers how many rows it deleted.
 */
export async function deleteInBatches(
  pool: StatementRunner,
  statement: { text: string; values: unknown[] },
  batchSize: number,
  signal?: AbortSignal,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(statement.text, [...statement.values, batchSize]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize || signal?.aborted) return deleted;
  }
}
