import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase, eventually } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import request from 'supertest';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { errorHandler } from '../http/error-handler.js';
import { clientAddressKey } from './client-address.js';
import { pruneRateLimits } from './prune-rate-limits.js';
import { RequestLimits } from './request-limits.js';
import { SharedLimit } from './shared-limit.js';
import { failureRateLimit } from '../auth/failure-rate-limit.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger));
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

/** A sign-in route behind the limits, answering 401 unless the password is "right". */
function signInApp(limits: RequestLimits) {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.use(express.json());
  app.use((incoming, _response, next) => {
    incoming.log = logger;
    next();
  });
  app.post('/sign-in', limits.signIn, (incoming, response) => {
    response.status((incoming.body as { password: string }).password === 'right' ? 200 : 401).json({});
  });
  app.use(errorHandler);
  return app;
}

const limitsOf = () =>
  new RequestLimits(database.pool, {
    authFailuresPerMinute: 100,
    signUpsPerHour: 100,
    signInsPerAddressPerMinute: 100,
    signInFailuresPerAccount: 2,
    widgetRequestsPerAddressPerMinute: 100,
    widgetRequestsPerKeyPerMinute: 100,
  });

describe('RequestLimits', () => {
  it('refuses an account past its failed sign-ins for 15 minutes, then 30 after the next failures, without lengthening a refusal while it runs', async () => {
    let app = signInApp(limitsOf());
    const signIn = (password: string) => request(app).post('/sign-in').send({ email: 'victim@example.com', password });
    for (let n = 0; n < 2; n += 1) expect((await signIn('wrong')).status).toBe(401);
    const first = await signIn('right');
    expect(first.status).toBe(429);
    expect(Number(first.headers['retry-after'])).toBe(900);
    // Asked again during the refusal: the same end, not a longer one.
    const during = await signIn('wrong');
    expect(Number(during.headers['retry-after'])).toBeLessThanOrEqual(900);
    // The refusal's end, as if its quarter of an hour had passed.
    await database.pool.query("UPDATE api.rate_limits SET expire = 0 WHERE key LIKE 'sign-in-failures:%'");
    // Asked of another instance: this one remembers the refusal until its own end.
    app = signInApp(limitsOf());
    for (let n = 0; n < 2; n += 1) expect((await signIn('wrong')).status).toBe(401);
    const second = await signIn('wrong');
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBe(1800);
  });

  it('deletes the counts whose window has ended, and keeps the others', async () => {
    await database.pool.query("INSERT INTO api.rate_limits (key, points, expire) VALUES ('old:1', 3, $1), ('current:1', 3, $2)", [Date.now() - 1000, Date.now() + 60_000]);
    await pruneRateLimits(database.pool);
    const keys = (await database.pool.query<{ key: string }>("SELECT key FROM api.rate_limits WHERE key IN ('old:1', 'current:1')")).rows.map((row) => row.key);
    expect(keys).toEqual(['current:1']);
  });
});

describe('clientAddressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('counts %s as %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });
});

describe('SharedLimit', () => {
  it('refuses a key past its limit from memory until its window ends, without asking the database again', async () => {
    const limit = new SharedLimit(database.pool, { name: 'memory-probe', points: 2, durationSeconds: 60 });
    await limit.take('flooder', 'no');
    await limit.take('flooder', 'no');
    await expect(limit.take('flooder', 'no')).rejects.toMatchObject({ code: 'rate_limited' });
    // Its count gone from the table, the key is still refused here: no query was made for it.
    await database.pool.query("DELETE FROM api.rate_limits WHERE key LIKE 'memory-probe:%'");
    await expect(limit.take('flooder', 'no')).rejects.toMatchObject({ code: 'rate_limited' });
    await limit.take('someone else', 'no');
  });
});

describe('SharedLimit, while its store does not answer', () => {
  it('counts in memory, and says the store failed', async () => {
    const failures: string[] = [];
    const store = { query: () => Promise.reject(new Error('store away')) } as unknown as pg.Pool;
    const limit = new SharedLimit(store, { name: 'store-away', points: 2, durationSeconds: 60 }, 3, () => failures.push('failed'));
    await limit.take('someone', 'no');
    await limit.take('someone', 'no');
    await expect(limit.take('someone', 'no')).rejects.toMatchObject({ code: 'rate_limited' });
    expect(failures).toHaveLength(3);
  });
});

describe('failureRateLimit', () => {
  /** An app behind the limit whose route answers the status its path names, after `delayMs`. */
  function limitedApp(failures: SharedLimit) {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use((incoming, _response, next) => {
      incoming.log = logger;
      next();
    });
    app.use(failureRateLimit(failures));
    app.get('/:status', (incoming, response) => {
      const delayMs = Number(incoming.query['delayMs'] ?? 0);
      setTimeout(() => void response.status(Number(incoming.params['status'])).json({}), delayMs);
    });
    app.use(errorHandler);
    return (address: string, status: number, delayMs = 0) => request(app).get(`/${status}?delayMs=${delayMs}`).set('x-forwarded-for', address);
  }

  it("gives back a request answered well, or refused by another limit, and keeps counting 401s", async () => {
    const from = limitedApp(new SharedLimit(database.pool, { name: 'failures-probe', points: 3, durationSeconds: 60 }, 9));
    for (let n = 0; n < 5; n += 1) expect((await from('192.0.2.1', 200)).status).toBe(200);
    expect((await from('192.0.2.2', 401)).status).toBe(401);
    // Another limit's refusal, such as the authority's full password hashing: no failed authentication.
    expect((await from('192.0.2.2', 429)).status).toBe(429);
    expect((await from('192.0.2.2', 401)).status).toBe(401);
    expect((await from('192.0.2.2', 401)).status).toBe(401);
    const refused = await from('192.0.2.2', 200);
    expect([refused.status, refused.body.error]).toEqual([429, 'rate_limited']);
  });

  it('refuses a burst of honest requests past the limit only while it lasts', async () => {
    const from = limitedApp(new SharedLimit(database.pool, { name: 'burst-probe', points: 3, durationSeconds: 60 }, 9));
    const burst = await Promise.all(Array.from({ length: 5 }, () => from('192.0.2.3', 200, 300)));
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429, 429]);
    // Each answered well gives its count back as its answer ends: the address is not refused for
    // the rest of the window, only until those give-backs are written. Watched in the table, not
    // by asking again: a request refused meanwhile would stay counted.
    const count = async () => (await database.pool.query<{ points: number }>("SELECT points FROM api.rate_limits WHERE key = 'burst-probe:192.0.2.3'")).rows[0]?.points;
    await eventually(async () => ((await count()) === 2 ? true : undefined), { what: 'the three counts given back', timeoutMs: 5000 });
    expect((await from('192.0.2.3', 200)).status).toBe(200);
  });
});
