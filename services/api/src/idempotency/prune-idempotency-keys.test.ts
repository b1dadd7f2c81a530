import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { ERASED_REQUEST_HASH } from './idempotent.js';
import { pruneIdempotencyKeys } from './prune-idempotency-keys.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger));
  pool = database.pool;
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

/** Stores an answered key, made that many hours ago. */
async function keyMade(key: string, hoursAgo: number, requestHash = 'v2:abc'): Promise<void> {
  await pool.query(
    `INSERT INTO api.idempotency_records (app_id, key, request_hash, response_status, response_body, created_at)
     VALUES (1, $1, $2, 201, '{"id": 1}', now() - make_interval(hours => $3))`,
    [key, requestHash, hoursAgo],
  );
}

const remaining = async () => (await pool.query<{ key: string }>('SELECT key FROM api.idempotency_records ORDER BY key')).rows.map((row) => row.key);

describe('pruneIdempotencyKeys', () => {
  it('deletes keys older than the retention, erasure tombstones too, a batch at a time, and keeps recent ones', async () => {
    await keyMade('old-1', 30);
    await keyMade('old-2', 25);
    await keyMade('old-erased', 26, ERASED_REQUEST_HASH);
    await keyMade('recent', 23);
    expect(await pruneIdempotencyKeys(pool, { retentionHours: 24, batchSize: 2 })).toBe(3);
    expect(await remaining()).toEqual(['recent']);
    expect(await pruneIdempotencyKeys(pool, { retentionHours: 24 })).toBe(0);
  });

  it('starts no further batch once told the service is stopping', async () => {
    await keyMade('stop-1', 30);
    await keyMade('stop-2', 30);
    await keyMade('stop-3', 30);
    const stopping = new AbortController();
    stopping.abort();
    expect(await pruneIdempotencyKeys(pool, { retentionHours: 24, batchSize: 1, signal: stopping.signal })).toBe(1);
    expect(await pruneIdempotencyKeys(pool, { retentionHours: 24, batchSize: 1 })).toBe(2);
  });
});
