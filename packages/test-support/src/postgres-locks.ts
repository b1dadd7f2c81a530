import type pg from 'pg';
import { eventually } from './eventually.js';

/**
 * Resolves once another session waits for a lock `holder` holds: the moment a test that holds a
 * row or an advisory lock knows the code under test has reached it.
 */
export async function untilSomeoneWaitsOn(holder: pg.ClientBase, what = 'another session to wait for the lock'): Promise<void> {
  const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const holderPid = rows[0]!.pid;
  await eventually(
    async () => {
      // Within the holder's transaction, pg_stat_activity is read once and kept: read it afresh.
      await holder.query('SELECT pg_stat_clear_snapshot()');
      const waiting = await holder.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))', [holderPid]);
      return waiting.rows[0]!.n >= 1 ? true : undefined;
    },
    { what },
  );
}

/** The error PostgreSQL raises for a condition (`deadlock_detected`, `unique_violation`…), as node-postgres reports it. */
export async function postgresError(client: pg.Client, condition: string): Promise<unknown> {
  if (!/^[a-z_]+$/.test(condition)) throw new Error(`not a condition name: ${condition}`);
  return client.query(`DO $$ BEGIN RAISE EXCEPTION 'raised by a test' USING ERRCODE = '${condition}'; END $$`).then(
    () => {
      throw new Error(`${condition} was not raised`);
    },
    (error: unknown) => error,
  );
}
