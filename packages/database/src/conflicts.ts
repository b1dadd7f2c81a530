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

/** What Prisma's driver adapter says when the database could not be reached or was lost. */
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'TooManyConnections', 'SocketTimeout']);
/** The same from node-postgres and its pool, by message or socket error code. */
const UNAVAILABLE_MESSAGES = ['timeout exceeded when trying to connect', 'Connection terminated'];
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** PostgreSQL's own: too_many_connections, admin_shutdown, crash_shutdown, cannot_connect_now. */
const UNAVAILABLE_STATES = new Set(['53300', '57P01', '57P02', '57P03']);

/**
 * Whether a query failed because the database was not there for it (down, unreachable, out of
 * connections, or every connection of the pool busy past its wait), rather than because of the
 * query: nothing was done, and the same request may succeed shortly.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // As Prisma's client wraps it (meta.driverAdapterError), or as the adapter throws it.
  const adapterError = (error as { meta?: { driverAdapterError?: unknown } } | undefined)?.meta?.driverAdapterError ?? error;
  const kind = (adapterError as { name?: unknown; cause?: { kind?: unknown } } | undefined)?.cause?.kind;
  if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return true;
  if (UNAVAILABLE_STATES.has(postgresErrorCode(error) ?? '')) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((start) => message.startsWith(start));
}
