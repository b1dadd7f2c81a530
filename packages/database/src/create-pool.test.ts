import { describe, expect, it } from '@jest/globals';
import type { Logger } from '@feedback/logging';
import pg from 'pg';
import { TcpProxy } from '@feedback/test-support';
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

  it('fails a query the database never answers at its time limit, and goes on with a new connection once it answers again', async () => {
    const target = new URL(postgresUrl);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const logger = { warn: () => undefined } as unknown as Logger;
    const pool = createPool({ connectionString: proxy.urlFor(postgresUrl), logger, max: 1, limits: { queryMs: 500 } });
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // As a partition would: what is sent never arrives, and nothing comes back.
      proxy.stallClients();
      await expect(pool.query('SELECT 1')).rejects.toThrow('Query read timeout');
      proxy.restore();
      const again = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      await pool.end();
      await proxy.close();
    }
  });
});
