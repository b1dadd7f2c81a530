import pg from 'pg';

/**
 * PostgreSQL's SQLSTATE for a failed statement, as Prisma's driver adapter reports it
 * (`meta.driverAdapterError.cause.originalCode`) or as node-postgres does; undefined for any
 * other error.
 */
export function postgresErrorCode(error: unknown): string | undefined {
  if (error instanceof pg.DatabaseError) return error.code;
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | undefined)?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}

/** deadlock_detected and serialization_failure: PostgreSQL ended the transaction and asks for it to be run again. */
const CONFLICTS = new Set(['40P01', '40001']);

/**
 * Runs a transaction again, from the start, when PostgreSQL ended it to break a deadlock or a
 * serialization conflict: nothing of it was committed. Only for a transaction that is safe to run
 * twice; its other failures, and a conflict on the last attempt, are thrown. (PostgreSQL logs
 * each deadlock with the statements in it.)
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      const code = postgresErrorCode(error);
      if (attempt >= attempts || code === undefined || !CONFLICTS.has(code)) throw error;
    }
  }
}
