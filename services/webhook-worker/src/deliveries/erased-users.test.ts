import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { erasedUserHash } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import winston from 'winston';
import { migrateWorkerDatabase } from '../database.js';
import { AttemptStore } from './attempt-store.js';
import { ErasureHashKey, pruneErasures, userHashSql } from './erased-users.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const key = randomBytes(32);
let database: MigratedTestDatabase;
let pool: pg.Pool;
let store: AttemptStore;
let endpointId: string;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  pool = database.pool;
  store = new AttemptStore(pool, { erasureHashKey: new ErasureHashKey(key) });
  endpointId = await insertEndpoint(pool);
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

/** A delivery of an event written at `writtenAt` by end user `externalId` of app 1. */
async function deliveryBy(externalId: string, writtenAt: Date, identity: 'author' | 'sender' = 'author'): Promise<string> {
  const id = randomUUID();
  const payload = { id, event: 'suggestion.created', created_at: writtenAt.toISOString(), app: { id: 1 }, data: { [identity]: { external_id: externalId } } };
  await pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload) VALUES ($1, $2, $3, 'suggestion.created', 1, $4)`,
    [id, endpointId, randomUUID(), JSON.stringify(payload)],
  );
  return id;
}

const erase = (userHash: string, erasedAt: Date, keyed = true) =>
  pool.query('INSERT INTO webhooks.privacy_erasures (app_id, user_hash, erased_at, keyed) VALUES (1, $1, $2, $3)', [userHash, erasedAt, keyed]);
const namesErasedUser = async (deliveryId: string) => (await store.load(deliveryId))!.namesErasedUser;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('the erasure hash', () => {
  it('is computed in SQL exactly as the api computes it, for any text', async () => {
    const pads = new ErasureHashKey(key).pads;
    for (const externalId of ['ada@example.com', 'Zoë 🙂', "o'brien"]) {
      const { rows } = await pool.query<{ hash: string }>(`SELECT ${userHashSql('$1::int', '$2::text', '$3::text[]')} AS hash`, [42, externalId, pads]);
      expect(rows[0]!.hash).toBe(erasedUserHash(key, 42, externalId));
    }
  });

  it('follows HMAC for a key longer than a block, hashing it first', async () => {
    const long = randomBytes(100);
    const { rows } = await pool.query<{ hash: string }>(`SELECT ${userHashSql('$1::int', '$2::text', '$3::text[]')} AS hash`, [7, 'u', new ErasureHashKey(long).pads]);
    expect(rows[0]!.hash).toBe(erasedUserHash(long, 7, 'u'));
  });
});

describe('an attempt for an erased user', () => {
  it('is withheld when its event was written before the erasure, as author or as sender', async () => {
    const asAuthor = await deliveryBy('gone-1', minutesAgo(10));
    const asSender = await deliveryBy('gone-1', minutesAgo(10), 'sender');
    await erase(erasedUserHash(key, 1, 'gone-1'), minutesAgo(5));
    expect(await namesErasedUser(asAuthor)).toBe(true);
    expect(await namesErasedUser(asSender)).toBe(true);
  });

  it('goes when the user wrote again after the erasure: the api keeps what they write from then on', async () => {
    await erase(erasedUserHash(key, 1, 'back-again'), minutesAgo(5));
    expect(await namesErasedUser(await deliveryBy('back-again', minutesAgo(1)))).toBe(false);
  });

  it('is withheld when its event is stamped less than a minute after the erasure: two api instances may differ by that much', async () => {
    await erase(erasedUserHash(key, 1, 'skewed'), minutesAgo(5));
    expect(await namesErasedUser(await deliveryBy('skewed', minutesAgo(4.5)))).toBe(true);
  });

  it('goes for another user of the app, and for the same id in another app', async () => {
    await erase(erasedUserHash(key, 2, 'other-app'), minutesAgo(5));
    await erase(erasedUserHash(key, 1, 'someone'), minutesAgo(5));
    expect(await namesErasedUser(await deliveryBy('other-app', minutesAgo(10)))).toBe(false);
    expect(await namesErasedUser(await deliveryBy('someone-else', minutesAgo(10)))).toBe(false);
  });

  it('is withheld for an erasure recorded before the key, under its plain SHA-256', async () => {
    const plain = createHash('sha256').update('1:legacy-user').digest('hex');
    await erase(plain, minutesAgo(5), false);
    expect(await namesErasedUser(await deliveryBy('legacy-user', minutesAgo(10)))).toBe(true);
  });

  it('is not matched by a plain SHA-256 stored as keyed: a hash made without the key names nobody', async () => {
    await erase(createHash('sha256').update('1:unkeyed').digest('hex'), minutesAgo(5));
    expect(await namesErasedUser(await deliveryBy('unkeyed', minutesAgo(10)))).toBe(false);
  });
});

describe('pruneErasures', () => {
  it('deletes erasures recorded before the retention and keeps recent ones', async () => {
    const old = randomBytes(32).toString('hex');
    const recent = randomBytes(32).toString('hex');
    await pool.query('INSERT INTO webhooks.privacy_erasures (app_id, user_hash, erased_at) VALUES (9, $1, $2), (9, $3, now())', [old, new Date(Date.now() - 31 * 86_400_000), recent]);
    expect(await pruneErasures(pool, 30)).toBe(1);
    const { rows } = await pool.query<{ user_hash: string }>('SELECT user_hash FROM webhooks.privacy_erasures WHERE app_id = 9');
    expect(rows.map((row) => row.user_hash)).toEqual([recent]);
  });
});
