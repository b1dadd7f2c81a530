import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { postgresError } from '@feedback/test-support';
import type { Logger } from '@feedback/logging';
import { createPool, createPrismaAdapter, isDatabaseUnavailable, postgresErrorCode, retryOnConflict } from './index.js';

const postgresUrl = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
});

afterAll(async () => {
  await client.end();
});

/** Fails as PostgreSQL does with the given condition name. */
const failWith = async (condition: string): Promise<never> => {
  throw await postgresError(client, condition);
};

describe('postgresErrorCode', () => {
  it('reads the SQLSTATE from node-postgres and from Prisma driver adapter errors, and nothing else', async () => {
    expect(postgresErrorCode(await client.query('SELECT 1 / 0').catch((error: unknown) => error))).toBe('22012');
    // The shape Prisma 7 gives for a deadlock in an interactive transaction (P2034).
    const prismaError = { code: 'P2034', meta: { driverAdapterError: { cause: { originalCode: '40P01', kind: 'TransactionWriteConflict' } } } };
    expect(postgresErrorCode(prismaError)).toBe('40P01');
    expect(postgresErrorCode({ code: 'P2002' })).toBeUndefined();
    expect(postgresErrorCode(new Error('connection refused'))).toBeUndefined();
    expect(postgresErrorCode(undefined)).toBeUndefined();
  });
});

describe('retryOnConflict', () => {
  it('runs a transaction ended by a deadlock or serialization failure again, and answers what the next run answers', async () => {
    const ended = ['deadlock_detected', 'serialization_failure'];
    let runs = 0;
    const answer = await retryOnConflict(async () => {
      const condition = ended[runs++];
      return condition ? failWith(condition) : 'committed';
    });
    expect(answer).toBe('committed');
    expect(runs).toBe(3);
  });

  it('gives up after its attempts with the last conflict', async () => {
    let runs = 0;
    const failure = await retryOnConflict(() => {
      runs++;
      return failWith('deadlock_detected');
    }, 2).catch((error: unknown) => error);
    expect(postgresErrorCode(failure)).toBe('40P01');
    expect(runs).toBe(2);
  });

  it('throws any other failure at once', async () => {
    let runs = 0;
    const failure = await retryOnConflict(() => {
      runs++;
      return failWith('unique_violation');
    }).catch((error: unknown) => error);
    expect(postgresErrorCode(failure)).toBe('23505');
    expect(runs).toBe(1);
  });
});

describe('isDatabaseUnavailable', () => {
  it('tells a database that was not there (unreachable, every connection busy past the wait, shut down) from a query that failed', async () => {
    const unreachable = 'postgresql://postgres@127.0.0.1:1/postgres';
    const direct = new pg.Client({ connectionString: unreachable });
    expect(isDatabaseUnavailable(await direct.connect().catch((error: unknown) => error))).toBe(true);
    // Through Prisma's driver adapter, as the services query, and as Prisma's client wraps it.
    const adapter = await createPrismaAdapter({ connectionString: unreachable, schema: 'public' }).connect();
    const thrown = await adapter.queryRaw({ sql: 'SELECT 1', args: [], argTypes: [] }).catch((error: unknown) => error);
    expect(isDatabaseUnavailable(thrown)).toBe(true);
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { driverAdapterError: thrown } })).toBe(true);
    await adapter.dispose();
    // The pool's only connection held past its wait.
    const pool = createPool({ connectionString: postgresUrl, logger: { warn: () => undefined } as unknown as Logger, max: 1, connectTimeoutMs: 100 });
    const held = await pool.connect();
    const waited = await pool.query('SELECT 1').catch((error: unknown) => error);
    held.release();
    await pool.end();
    expect(isDatabaseUnavailable(waited)).toBe(true);
    expect(isDatabaseUnavailable(await postgresError(client, 'admin_shutdown'))).toBe(true);
    // The query's own failures are not.
    expect(isDatabaseUnavailable(await client.query('SELECT 1 / 0').catch((error: unknown) => error))).toBe(false);
    expect(isDatabaseUnavailable(await postgresError(client, 'unique_violation'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
  });
});
