import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase } from '@feedback/test-support';
import type { TestDatabase } from '@feedback/test-support';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { PostgresIdempotencyStore } from './postgres-idempotency-store.js';
import type { Queryable } from './postgres-idempotency-store.js';

const POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('MemoryIdempotencyStore', () => {
  it('claims a new id, answers in_progress while it is handled, and done after', async () => {
    const store = new MemoryIdempotencyStore();
    expect(await store.claim('d-1')).toBe('claimed');
    expect(await store.claim('d-1')).toBe('in_progress');
    await store.complete('d-1');
    expect(await store.claim('d-1')).toBe('done');
  });

  it('lets a released id be claimed again, for the retry after a failed handler', async () => {
    const store = new MemoryIdempotencyStore();
    await store.claim('d-1');
    await store.release('d-1');
    expect(await store.claim('d-1')).toBe('claimed');
  });

  it('lets a claim older than the lease be taken over, as after a crashed handler', async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ leaseMs: 1000, now: () => now });
    await store.claim('d-1');
    now = 999;
    expect(await store.claim('d-1')).toBe('in_progress');
    now = 1000;
    expect(await store.claim('d-1')).toBe('claimed');
  });

  it('by default, lets the first retry of a crashed attempt take its claim over, with a clock minutes apart', async () => {
    // The sender retries 5 minutes after the failure, which comes after the claim; the receiver's
    // clock may differ from the sender's.
    let now = 0;
    const store = new MemoryIdempotencyStore({ now: () => now });
    await store.claim('d-1');
    now = 30_000; // a member's redelivery soon after: the handler may still be running
    expect(await store.claim('d-1')).toBe('in_progress');
    now = 5 * 60_000 - 90_000;
    expect(await store.claim('d-1')).toBe('claimed');
  });

  it('forgets the oldest ids beyond its size and retention', async () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ maxEntries: 2, retentionMs: 10_000, now: () => now });
    for (const id of ['a', 'b', 'c']) {
      await store.claim(id);
      await store.complete(id);
    }
    now = 1;
    expect(await store.claim('b')).toBe('done');
    expect(await store.claim('a')).toBe('claimed');
    now = 20_000;
    expect(await store.claim('c')).toBe('claimed');
  });

  it('remembers a handled id 35 days from the last time it arrived (a redelivery by hand comes up to 30 days after the last attempt)', async () => {
    const day = 24 * 60 * 60 * 1000;
    let now = 0;
    const store = new MemoryIdempotencyStore({ now: () => now });
    await store.claim('r-1');
    await store.complete('r-1');
    now = 29 * day;
    expect(await store.claim('r-1')).toBe('done');
    now = 29 * day + 34 * day;
    expect(await store.claim('r-1')).toBe('done');
    now += 36 * day;
    expect(await store.claim('r-1')).toBe('claimed');
  });
});

describe('PostgresIdempotencyStore', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase(POSTGRES_URL);
    pool = new pg.Pool({ connectionString: database.url, max: 10 });
    // An idle connection ended by the server (the database is dropped at the end) is not a failure.
    pool.on('error', () => undefined);
    await new PostgresIdempotencyStore({ pool }).createTable();
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('claims a new id, answers in_progress while it is handled, and done after', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    expect(await store.claim('p-1')).toBe('claimed');
    expect(await store.claim('p-1')).toBe('in_progress');
    await store.complete('p-1');
    expect(await store.claim('p-1')).toBe('done');
  });

  it('lets a released id be claimed again', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    await store.claim('p-2');
    await store.release('p-2');
    expect(await store.claim('p-2')).toBe('claimed');
  });

  it('lets a claim older than the lease be taken over', async () => {
    const store = new PostgresIdempotencyStore({ pool, leaseMs: 50 });
    await store.claim('p-3');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.claim('p-3')).toBe('claimed');
  });

  it('gives one of ten racing claims of the same id the delivery, and in_progress to the rest', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    const answers = await Promise.all(Array.from({ length: 10 }, () => store.claim('p-race')));
    expect(answers.filter((answer) => answer === 'claimed')).toHaveLength(1);
    expect(answers.filter((answer) => answer === 'in_progress')).toHaveLength(9);
  });

  it('is shared between processes: a second store on the same table sees what the first handled', async () => {
    await new PostgresIdempotencyStore({ pool }).claim('p-4').then(() => new PostgresIdempotencyStore({ pool }).complete('p-4'));
    const elsewhere = new pg.Pool({ connectionString: database.url, max: 1 });
    elsewhere.on('error', () => undefined);
    try {
      expect(await new PostgresIdempotencyStore({ pool: elsewhere }).claim('p-4')).toBe('done');
    } finally {
      await elsewhere.end();
    }
  });

  it('deletes handled ids older than a date', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    await store.claim('p-old');
    await store.complete('p-old');
    expect(await store.deleteOlderThan(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
    expect(await store.claim('p-old')).toBe('claimed');
  });

  it('remembers a handled id from the last time it arrived: seeing it again moves its time on', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    await store.claim('p-again');
    await store.complete('p-again');
    await pool.query(`UPDATE webhook_deliveries_handled SET completed_at = now() - interval '40 days' WHERE delivery_id = 'p-again'`);
    expect(await store.claim('p-again')).toBe('done');
    expect(await store.deleteOlderThan(new Date(Date.now() - 35 * 24 * 60 * 60 * 1000))).toBe(0);
    expect(await store.claim('p-again')).toBe('done');
  });

  it('forgets a claim whose handler died, once it is older than the retention, and not before', async () => {
    const store = new PostgresIdempotencyStore({ pool });
    await store.claim('p-died');
    const cutoff = new Date(Date.now() - 35 * 24 * 60 * 60 * 1000);
    await store.deleteOlderThan(cutoff);
    expect((await pool.query(`SELECT state FROM webhook_deliveries_handled WHERE delivery_id = 'p-died'`)).rows).toEqual([{ state: 'in_progress' }]);
    await pool.query(`UPDATE webhook_deliveries_handled SET claimed_at = now() - interval '36 days' WHERE delivery_id = 'p-died'`);
    expect(await store.deleteOlderThan(cutoff)).toBe(1);
    expect((await pool.query(`SELECT 1 FROM webhook_deliveries_handled WHERE delivery_id = 'p-died'`)).rows).toEqual([]);
    // A claim still within its lease stays, whatever the date given.
    await store.claim('p-running');
    await store.deleteOlderThan(new Date(Date.now() + 3_600_000));
    expect((await pool.query(`SELECT state FROM webhook_deliveries_handled WHERE delivery_id = 'p-running'`)).rows).toEqual([{ state: 'in_progress' }]);
  });

  it('adds its clean-up index to a table made without it, and forgets old ids through it', async () => {
    // The table as version 0.3 made it, filled with 40 days of ids, a few of them older than 35.
    await pool.query(`CREATE SCHEMA receiver`);
    await pool.query(`
      CREATE TABLE receiver.handled (
        delivery_id text PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('in_progress', 'done')),
        claimed_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await pool.query(`
      INSERT INTO receiver.handled
      SELECT 'd-' || n, 'done', now() - (n * interval '1 minute') + interval '30 seconds', now() - (n * interval '1 minute') + interval '30 seconds'
        FROM generate_series(1, 57000) AS n`);
    await pool.query(`INSERT INTO receiver.handled VALUES ('died-long-ago', 'in_progress', now() - interval '36 days', NULL)`);
    // What PostgreSQL plans for the store's own DELETE, with its own values.
    const plans: string[] = [];
    const explaining: Queryable = {
      async query(text, values) {
        if (text.trimStart().startsWith('DELETE')) {
          const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
          plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
        }
        return pool.query(text, values) as never;
      },
    };
    const store = new PostgresIdempotencyStore({ pool: explaining, tableName: 'receiver.handled' });

    await store.createTable();
    await pool.query('ANALYZE receiver.handled');
    const cutoff = new Date(Date.now() - 35 * 24 * 60 * 60 * 1000);
    // 35 days are 50,400 minutes: the ids from 50,401 minutes back (less half a minute) to 57,000, and
    // the dead claim, are older.
    expect(await store.deleteOlderThan(cutoff)).toBe(6601);
    expect(plans[0]).toContain('handled_last_seen_idx');
    expect(plans[0]).not.toContain('Seq Scan');
    expect(await store.deleteOlderThan(cutoff)).toBe(0);
    expect((await pool.query(`SELECT count(*)::int AS left FROM receiver.handled`)).rows).toEqual([{ left: 57000 - 6600 }]);
  });

  it('is made by receivers starting together, each calling createTable, without an error', async () => {
    // A race lost only now and then: several rounds, each on a table of its own.
    for (const table of ['together_1', 'together_2', 'together_3', 'together_4']) {
      const stores = Array.from({ length: 6 }, () => new PostgresIdempotencyStore({ pool, tableName: table }));
      await Promise.all(stores.map((store) => store.createTable()));
      await stores[0]!.createTable();
      const { rows } = await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table]);
      expect(rows).toEqual([{ indexname: `${table}_last_seen_idx` }, { indexname: `${table}_pkey` }]);
    }
  });

  it('adds its index to the table its name resolves to, whatever another schema holds', async () => {
    // The search path finds `shadowed` in one schema, which lacks the index, before another, which has it.
    await pool.query(`CREATE SCHEMA first_on_path`);
    await new PostgresIdempotencyStore({ pool, tableName: 'public.shadowed' }).createTable();
    await pool.query(`CREATE TABLE first_on_path.shadowed (delivery_id text PRIMARY KEY, state text NOT NULL, claimed_at timestamptz NOT NULL, completed_at timestamptz)`);
    const client = await pool.connect();
    try {
      await client.query(`SET search_path = first_on_path, public`);
      await new PostgresIdempotencyStore({ pool: client, tableName: 'shadowed' }).createTable();
    } finally {
      await client.query('RESET search_path');
      client.release();
    }
    const { rows } = await pool.query(`SELECT schemaname, indexname FROM pg_indexes WHERE tablename = 'shadowed' AND indexname LIKE '%last_seen%' ORDER BY schemaname`);
    expect(rows).toEqual([
      { schemaname: 'first_on_path', indexname: 'shadowed_last_seen_idx' },
      { schemaname: 'public', indexname: 'shadowed_last_seen_idx' },
    ]);
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => new PostgresIdempotencyStore({ pool, tableName: 'handled; DROP TABLE users' })).toThrow(/identifier/);
  });
});
