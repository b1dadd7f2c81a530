import type pg from 'pg';

/**
 * Runs `work` on a connection checked out of `pool`, and hears the connection's 'error' event for
 * as long as it is held; answers what `work` answers.
 *
 * While a connection is checked out, the pool does not listen for its errors. node-postgres emits
 * one when the server closes the connection (PostgreSQL restarting, a failover, a proxy), whether
 * or not a query is running, and an 'error' nobody hears ends the process. Heard here, it only
 * fails the connection's next query, which `work` sees as an error of its own.
 *
 * The connection goes back to the pool as broken, to be closed rather than reused, if it was lost
 * or if `work` failed: a query that timed out may still be running on it.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const lost = (error: Error) => {
    broken ??= error;
  };
  client.on('error', lost);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // Released first: the pool's own listener is back before this one goes.
    client.release(broken ?? false);
    client.removeListener('error', lost);
  }
}
