import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { erasedUserHash } from '@feedback/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase, eventually } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import pg from 'pg';
import winston from 'winston';
import { connectWorkerDatabase, migrateWorkerDatabase } from '../database.js';
import type { WorkerDatabase } from '../database.js';
import { ErasureHashKey } from '../deliveries/erased-users.js';
import { recordErasure } from './domain-events.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const key = randomBytes(32);
const erasureHashKey = new ErasureHashKey(key);
const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let worker: WorkerDatabase;
let endpointId: string;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  worker = connectWorkerDatabase(database.url, logger, 2);
  endpointId = await insertEndpoint(database.pool);
}, 60_000);

afterAll(async () => {
  await worker?.prisma.$disconnect();
  await worker?.pool.end();
  await database?.drop();
});

describe('an erasure', () => {
  it('waits for a fan-out under way, holding up no other writer, and erases the delivery it was writing about the user', async () => {
    // A fan-out whose statement ran before the erasure was recorded, not yet committed.
    const fanOut = new pg.Client({ connectionString: database.url });
    await fanOut.connect();
    const deliveryId = randomUUID();
    try {
      await fanOut.query('BEGIN');
      await fanOut.query(
        `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
         VALUES ($1, $2, $3, 'suggestion.created', 1, $4)`,
        [deliveryId, endpointId, randomUUID(), JSON.stringify({ data: { author: { external_id: 'u-1', name: 'Ada' } } })],
      );
      const erasure = recordErasure(worker.prisma, {
        id: randomUUID(),
        event: 'privacy.user_erased',
        created_at: new Date().toISOString(),
        app_id: 1,
        user_hash: erasedUserHash(key, 1, 'u-1'),
        hash_key: erasureHashKey.id,
      }, erasureHashKey);
      let settled = false;
      void erasure.finally(() => (settled = true)).catch(() => undefined);
      // It waits without queueing for a lock: it watches the fan-out's transaction in pg_locks.
      await eventually(async () => {
        const { rows } = await database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%locktype = ''virtualxid''%' AND pid <> pg_backend_pid()");
        return rows[0]!.n > 0 ? true : undefined;
      }, { what: 'the erasure to watch the fan-out' });
      expect(settled).toBe(false);
      // Meanwhile other writers are not held up behind it (a lock queued for would hold this one).
      const writer = await database.pool.connect();
      try {
        await writer.query("SET statement_timeout = '2s'");
        await writer.query(
          `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload) VALUES ($1, $2, $3, 'suggestion.created', 1, '{}')`,
          [randomUUID(), endpointId, randomUUID()],
        );
      } finally {
        await writer.query('RESET statement_timeout');
        writer.release();
      }
      expect(settled).toBe(false);
      await fanOut.query('COMMIT');
      await erasure;
    } finally {
      await fanOut.end();
    }
    const { rows } = await database.pool.query('SELECT status::text AS status, payload FROM webhooks.deliveries WHERE id = $1', [deliveryId]);
    expect(rows).toEqual([{ status: 'withheld', payload: { erased: true } }]);
  });

  it('erases what the user wrote up to it, and delivers what they write after', async () => {
    const before = await deliveryBy('u-2', minutesAgo(10));
    const after = await deliveryBy('u-2', minutesAgo(1));
    await recordErasure(worker.prisma, erasure('u-2', minutesAgo(5)), erasureHashKey);
    expect(await stateOf(before)).toEqual({ status: 'withheld', payload: { erased: true } });
    expect(await stateOf(after)).toMatchObject({ status: 'pending', payload: { data: { author: { external_id: 'u-2' } } } });
  });

  it('moves the time on when the user is erased again, so what they wrote in between goes too', async () => {
    await recordErasure(worker.prisma, erasure('u-3', minutesAgo(20)), erasureHashKey);
    const between = await deliveryBy('u-3', minutesAgo(10));
    await recordErasure(worker.prisma, erasure('u-3', minutesAgo(5)), erasureHashKey);
    expect(await stateOf(between)).toEqual({ status: 'withheld', payload: { erased: true } });
    // An erasure given again late by the broker does not move the time back.
    await recordErasure(worker.prisma, erasure('u-3', minutesAgo(20)), erasureHashKey);
    const { rows } = await database.pool.query<{ erased_at: Date }>('SELECT erased_at FROM webhooks.privacy_erasures WHERE user_hash = $1', [erasedUserHash(key, 1, 'u-3')]);
    expect(rows[0]!.erased_at.getTime()).toBeGreaterThan(minutesAgo(6).getTime());
  });
});

describe('an erasure from an api of an earlier release', () => {
  it('names the user by a plain SHA-256: it is kept unkeyed, and scrubs by that hash', async () => {
    const written = await deliveryBy('u-4', minutesAgo(10));
    const plain = createHash('sha256').update('1:u-4').digest('hex');
    const { hash_key: _, ...withoutKey } = { ...erasure('u-4', minutesAgo(5)), user_hash: plain };
    await recordErasure(worker.prisma, withoutKey, erasureHashKey);
    expect(await stateOf(written)).toEqual({ status: 'withheld', payload: { erased: true } });
    const { rows } = await database.pool.query<{ keyed: boolean }>('SELECT keyed FROM webhooks.privacy_erasures WHERE user_hash = $1', [plain]);
    expect(rows).toEqual([{ keyed: false }]);
  });
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

const erasure = (externalId: string, at: Date) => ({
  id: randomUUID(),
  event: 'privacy.user_erased' as const,
  created_at: at.toISOString(),
  app_id: 1,
  user_hash: erasedUserHash(key, 1, externalId),
  hash_key: erasureHashKey.id,
});

/** A pending delivery of an event written at `writtenAt` by end user `externalId` of app 1. */
async function deliveryBy(externalId: string, writtenAt: Date): Promise<string> {
  const id = randomUUID();
  await database.pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload) VALUES ($1, $2, $3, 'suggestion.created', 1, $4)`,
    [id, endpointId, randomUUID(), JSON.stringify({ id, created_at: writtenAt.toISOString(), data: { author: { external_id: externalId } } })],
  );
  return id;
}

async function stateOf(deliveryId: string) {
  const { rows } = await database.pool.query('SELECT status::text AS status, payload FROM webhooks.deliveries WHERE id = $1', [deliveryId]);
  return rows[0];
}
