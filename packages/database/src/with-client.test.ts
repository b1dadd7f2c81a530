import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Logger } from '@feedback/logging';
import { TcpProxy } from '@feedback/test-support';
import type pg from 'pg';
import { createPool, withClient } from './index.js';

const postgresUrl = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const logger = { warn: () => undefined } as unknown as Logger;
let proxy: TcpProxy;

beforeAll(async () => {
  const target = new URL(postgresUrl);
  proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
});

afterAll(async () => {
  await proxy?.close();
});

const backendPid = async (pool: pg.Pool) => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

describe('withClient', () => {
  it('keeps the process alive when the server closes the connection it holds, again and again, and the pool opens another', async () => {
    const pool = createPool({ connectionString: proxy.urlFor(postgresUrl), logger, max: 1 });
    try {
      for (let cut = 0; cut < 20; cut += 1) {
        const outcome = await withClient(pool, async (client) => {
          await client.query('SELECT 1');
          proxy.interrupt();
          // Failed as node-postgres gives the connection up, which also emits 'error' on it.
          await expect(client.query('SELECT 1')).rejects.toThrow(/terminated/);
          return client.query('SELECT 1').then(
            () => 'answered',
            (error: Error) => error.message,
          );
        });
        expect(outcome).toMatch(/not queryable|terminated/);
        proxy.restore();
        expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      }
    } finally {
      proxy.restore();
      await pool.end();
    }
  });

  it('hands back the error of work that failed, and closes its connection instead of lending it again', async () => {
    const pool = createPool({ connectionString: postgresUrl, logger, max: 1 });
    try {
      const before = await backendPid(pool);
      const failure = new Error('work failed');
      await expect(
        withClient(pool, async (client) => {
          await client.query('SELECT 1');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await backendPid(pool)).not.toBe(before);
    } finally {
      await pool.end();
    }
  });

  it('lends the same connection again after work that succeeded', async () => {
    const pool = createPool({ connectionString: postgresUrl, logger, max: 1 });
    try {
      const before = await backendPid(pool);
      expect(await withClient(pool, async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid)).toBe(before);
      expect(await backendPid(pool)).toBe(before);
    } finally {
      await pool.end();
    }
  });
});
