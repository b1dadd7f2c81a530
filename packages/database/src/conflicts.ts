/**
 * PostgreSQL's SQLSTATE for a failed statement, as Prisma's driver adapter reports it
 * (`meta.driverAdapterError.cause.originalCode`) or as node-postgres does; undefined for any
 * other error.
 */
export function postgresErrorCode(error: unknown): string | undefined {
  // node-postgres's DatabaseError, by its shape: a second copy of pg would fail instanceof.
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string') return code;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | undefined)?.meta;
  const original = meta?.driverAdapterError?.cause?.originalCode;
  return typeof original === 'string' ? original : undefined;
}

/** deadlock_detected and serialization_failure: PostgreSQL ended the transaction and asks for it to be run again. */
const CONFLICTS = new Set(['40P01', '40001']);

/** Whether PostgreSQL ended a transaction to break a deadlock or a serialization conflict. */
export const isTransactionConflict = (error: unknown) => CONFLICTS.has(postgresErrorCode(error) ?? '');

/**
 * Runs a transaction again, from the start, when PostgreSQL ended it to break a deadlock or a
 * serialization conflict: nothing of it was committed. Only for a transaction that is safe to run
 * twice; its other failures, and a conflict on the last attempt, are thrown (the api answers
 * that 503, see isTransactionConflict). PostgreSQL logs each deadlock with the statements in it.
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      // A moment apart, at random, so two transactions that deadlocked do not meet again in step.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}
