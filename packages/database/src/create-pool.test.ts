import { describe, expect, it } from '@jest/globals';
import type { Logger } from '@feedback/logging';
import pg from 'pg';
import { createPool } from './index.js';

const postgresUrl = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('createPool', () => {
  it('outlives a connection the server closes while it is idle, logs it, and opens another', async () => {
    const lines: Array<{ level: string; message: string }> = [];
    const logger = { warn: (message: string) => void lines.push({ level: 'warn', message }) } as unknown as Logger;
    const pool = createPool({ connectionString: postgresUrl, logger, max: 1 });
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // As a restart or an idle timeout would: the connection, idle in the pool, is closed by the server.
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      for (let waited = 0; lines.length === 0 && waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(lines).toEqual([{ level: 'warn', message: expect.stringContaining('closed while idle') }]);
      const again = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      await admin.end();
      await pool.end();
    }
  });

  it('fails a query that waits longer than its limit for a connection, and serves the next once one is free', async () => {
    const logger = { warn: () => undefined } as unknown as Logger;
    const pool = createPool({ connectionString: postgresUrl, logger, max: 1, connectTimeoutMs: 300 });
    try {
      // The pool's only connection is busy (a long statement, or a database that stopped answering).
      const held = await pool.connect();
      const waited = await pool.query('SELECT 1').catch((error: unknown) => error);
      held.release();
      expect(waited).toEqual(expect.objectContaining({ message: expect.stringMatching(/timeout exceeded when trying to connect/) }));
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
