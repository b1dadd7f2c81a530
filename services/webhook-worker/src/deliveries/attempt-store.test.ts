import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase, untilSomeoneWaitsOn } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import pg from 'pg';
import winston from 'winston';
import { migrateWorkerDatabase } from '../database.js';
import { AttemptStore } from './attempt-store.js';
import { ErasureHashKey } from './erased-users.js';
import type { AttemptOutcome } from './attempt-store.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let pool: pg.Pool;
let store: AttemptStore;
let endpointId: string;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  pool = database.pool;
  store = new AttemptStore(pool, { erasureHashKey: new ErasureHashKey(randomBytes(32)) });
  endpointId = await insertEndpoint(pool);
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

async function delivery(status = 'pending', attempts = 0): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts)
     VALUES ($1, $2, $3, 'suggestion.created', 1, '{}', $4::webhooks."DeliveryStatus", $5)`,
    [id, endpointId, randomUUID(), status, attempts],
  );
  return id;
}

const outcome = (deliveryId: string, number: number, responseCode: number, status: AttemptOutcome['status'], manual = false): AttemptOutcome => ({
  deliveryId,
  number,
  startedAt: new Date(),
  durationMs: 3,
  responseCode,
  error: null,
  responseBodyStart: `answer ${responseCode}`,
  status,
  manual,
});

async function stateOf(id: string) {
  const { rows: [row] } = await pool.query<{ status: string; attempts: number; last_response_code: number | null }>(
    'SELECT status::text AS status, attempts, last_response_code FROM webhooks.deliveries WHERE id = $1',
    [id],
  );
  const { rows } = await pool.query<{ number: number; response_code: number }>(
    'SELECT number, response_code FROM webhooks.delivery_attempts WHERE delivery_id = $1 ORDER BY number',
    [id],
  );
  return { ...row, log: rows.map((attempt) => [attempt.number, attempt.response_code]) };
}

describe('AttemptStore.record', () => {
  it('records the next attempt of a delivery under way, and tells the caller so', async () => {
    const id = await delivery();
    expect(await store.record(outcome(id, 1, 500, 'retrying'))).toBe(true);
    expect(await store.record(outcome(id, 2, 204, 'delivered'))).toBe(true);
    expect(await stateOf(id)).toEqual({ status: 'delivered', attempts: 2, last_response_code: 204, log: [[1, 500], [2, 204]] });
  });

  it('records what a receiver said even when PostgreSQL could not store it as given, with the rest of its statement', async () => {
    const [strange, plain] = [await delivery(), await delivery()];
    // A NUL in an error, and half of a surrogate pair, as text cut between the two would hold.
    const odd = { ...outcome(strange, 1, 502, 'retrying'), error: 'reset\0by peer', responseBodyStart: 'oops \uD83D', requestHeaders: { 'webhook-id': strange } };
    expect(await Promise.all([store.record(odd), store.record(outcome(plain, 1, 204, 'delivered'))])).toEqual([true, true]);
    const { rows } = await pool.query<{ error: string; response_body_start: string; request_headers: unknown }>(
      'SELECT error, response_body_start, request_headers FROM webhooks.delivery_attempts WHERE delivery_id = $1',
      [strange],
    );
    expect(rows).toEqual([{ error: 'reset\uFFFDby peer', response_body_start: 'oops \uFFFD', request_headers: { 'webhook-id': strange } }]);
    expect(await stateOf(plain)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('reads deliveries again with one plan, however many ids each read carries', async () => {
    // A pool of one connection: its prepared statements are the ones counted.
    const onePool = new pg.Pool({ connectionString: database.url, max: 1 });
    const oneStore = new AttemptStore(onePool, { erasureHashKey: new ErasureHashKey(randomBytes(32)) });
    try {
      for (let run = 1; run <= 8; run += 1) {
        const ids = await Promise.all(Array.from({ length: 1 + (run % 3) }, () => delivery()));
        expect((await Promise.all(ids.map((id) => oneStore.now(id)))).map((now) => now?.status)).toEqual(ids.map(() => 'pending'));
      }
      const { rows } = await onePool.query<{ generic: string; custom: string }>("SELECT generic_plans::text AS generic, custom_plans::text AS custom FROM pg_prepared_statements WHERE name = 'deliveries-now'");
      // PostgreSQL tries five custom plans, then keeps the generic one.
      expect(rows).toEqual([{ generic: '3', custom: '5' }]);
    } finally {
      await onePool.end();
    }
  });

  it('changes nothing for a second copy of an attempt that failed, so no second retry follows it', async () => {
    const id = await delivery();
    expect(await store.record(outcome(id, 1, 500, 'retrying'))).toBe(true);
    expect(await store.record(outcome(id, 1, 503, 'retrying'))).toBe(false);
    expect(await stateOf(id)).toEqual({ status: 'retrying', attempts: 1, last_response_code: 500, log: [[1, 500]] });
  });

  it('lets a 2xx outweigh a failure of the same attempt recorded first: the receiver has the event', async () => {
    const id = await delivery();
    expect(await store.record(outcome(id, 1, 500, 'retrying'))).toBe(true);
    expect(await store.record(outcome(id, 1, 200, 'delivered'))).toBe(true);
    expect(await stateOf(id)).toEqual({ status: 'delivered', attempts: 1, last_response_code: 200, log: [[1, 200]] });
    // The retry the failed copy queued finds it delivered and changes nothing.
    expect(await store.record(outcome(id, 2, 500, 'retrying'))).toBe(false);
    expect((await stateOf(id)).status).toBe('delivered');
  });

  it('lets a 2xx of the last attempt outweigh its failed copy that abandoned the delivery', async () => {
    const id = await delivery('retrying', 5);
    expect(await store.record(outcome(id, 6, 500, 'abandoned'))).toBe(true);
    expect(await store.record(outcome(id, 6, 204, 'delivered'))).toBe(true);
    expect(await stateOf(id)).toMatchObject({ status: 'delivered', attempts: 6, log: [[6, 204]] });
  });

  it('never moves a delivered delivery back by a failed copy recorded after it', async () => {
    const id = await delivery();
    expect(await store.record(outcome(id, 1, 200, 'delivered'))).toBe(true);
    expect(await store.record(outcome(id, 1, 500, 'retrying'))).toBe(false);
    expect(await stateOf(id)).toEqual({ status: 'delivered', attempts: 1, last_response_code: 200, log: [[1, 200]] });
  });

  it('keeps only one of two copies of an attempt that share a statement', async () => {
    const id = await delivery();
    const [first, second] = await Promise.all([store.record(outcome(id, 1, 500, 'retrying')), store.record(outcome(id, 1, 502, 'retrying'))]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect((await stateOf(id)).log).toHaveLength(1);
  });

  it.each([
    ['the failure first', [500, 204]],
    ['the 2xx first', [204, 500]],
  ])('lets a 2xx outweigh a failed copy of the same attempt in the same statement (%s)', async (_order, codes) => {
    const id = await delivery();
    const answers = await Promise.all(codes.map((code) => store.record(outcome(id, 1, code, code === 204 ? 'delivered' : 'retrying'))));
    expect(answers).toEqual(codes.map((code) => code === 204));
    expect(await stateOf(id)).toEqual({ status: 'delivered', attempts: 1, last_response_code: 204, log: [[1, 204]] });
  });

  it('records a redelivery by hand that shares a statement with a 2xx copy of an earlier attempt it may not record', async () => {
    // Abandoned after six attempts, a late 2xx copy of the sixth still under way, and pressed Redeliver: pending.
    const id = await delivery('pending', 6);
    const [late, byHand] = await Promise.all([store.record(outcome(id, 6, 204, 'delivered')), store.record(outcome(id, 7, 500, 'abandoned', true))]);
    expect({ late, byHand }).toEqual({ late: false, byHand: true });
    expect(await stateOf(id)).toMatchObject({ status: 'abandoned', attempts: 7, log: [[7, 500]] });
  });

  it('does not let a late 2xx copy of an earlier attempt outweigh a later one: the history would show a failure after the delivery', async () => {
    // Abandoned after six attempts, redelivered by hand (the seventh failed); a 2xx copy of the sixth comes in last.
    const id = await delivery('abandoned', 6);
    expect(await store.record(outcome(id, 7, 500, 'abandoned', true))).toBe(true);
    expect(await store.record(outcome(id, 6, 204, 'delivered'))).toBe(false);
    expect(await stateOf(id)).toMatchObject({ status: 'abandoned', attempts: 7, log: [[7, 500]] });
  });

  it('keeps no answer on a delivery an erasure emptied, though a 2xx copy of its latest attempt comes in', async () => {
    const id = await delivery('abandoned', 6);
    await pool.query(`UPDATE webhooks.deliveries SET payload = '{"erased": true}' WHERE id = $1`, [id]);
    expect(await store.record(outcome(id, 6, 204, 'delivered'))).toBe(false);
    expect(await stateOf(id)).toMatchObject({ status: 'abandoned', attempts: 6, log: [] });
  });

  it('does not record a stale automatic retry over a redelivery by hand that is pending', async () => {
    // Delivered after two attempts, then pressed Redeliver: pending, attempt 3 to come by hand.
    const id = await delivery('pending', 2);
    expect(await store.record(outcome(id, 3, 500, 'retrying'))).toBe(false);
    expect(await store.record(outcome(id, 3, 204, 'delivered', true))).toBe(true);
    expect(await stateOf(id)).toMatchObject({ status: 'delivered', attempts: 3, log: [[3, 204]] });
  });

  it('records a redelivery by hand of a settled delivery, but no automatic attempt after it settled', async () => {
    const id = await delivery('abandoned', 6);
    expect(await store.record(outcome(id, 7, 500, 'retrying'))).toBe(false);
    expect(await store.record(outcome(id, 7, 204, 'delivered', true))).toBe(true);
    expect(await stateOf(id)).toMatchObject({ status: 'delivered', attempts: 7, log: [[7, 204]] });
  });

  it('leaves a withheld delivery withheld, whatever an attempt already under way reports', async () => {
    const id = await delivery('withheld', 1);
    expect(await store.record(outcome(id, 2, 204, 'delivered'))).toBe(false);
    expect(await store.record(outcome(id, 2, 204, 'delivered', true))).toBe(false);
    expect(await stateOf(id)).toEqual({ status: 'withheld', attempts: 1, last_response_code: null, log: [] });
  });

  it('answers false for a delivery deleted meanwhile, rather than failing on its foreign key', async () => {
    expect(await store.record(outcome(randomUUID(), 1, 204, 'delivered'))).toBe(false);
  });
});

describe('AttemptStore.redeliveryCommitted', () => {
  it('waits for the redelivery\'s transaction, and says whether it committed', async () => {
    for (const end of ['COMMIT', 'ROLLBACK'] as const) {
      const id = await delivery('delivered', 1);
      const redelivery = await pool.connect();
      try {
        // As `redeliver` does: the row locked, the attempt queued, the delivery marked pending.
        await redelivery.query('BEGIN');
        await redelivery.query('SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [id]);
        await redelivery.query("UPDATE webhooks.deliveries SET status = 'pending' WHERE id = $1", [id]);
        const committed = store.redeliveryCommitted(id, 2);
        await untilSomeoneWaitsOn(redelivery, 'the check to wait for the redelivery');
        await redelivery.query(end);
        expect({ end, committed: await committed }).toEqual({ end, committed: end === 'COMMIT' });
      } finally {
        redelivery.release();
      }
    }
    // Not at the attempt it queued (another redelivery came in between): not this one's.
    expect(await store.redeliveryCommitted(await delivery('pending', 3), 2)).toBe(false);
  });
});

describe('AttemptStore.cancel', () => {
  it('cancels only while the automatic attempt named is the one due, never a redelivery by hand pending', async () => {
    const retrying = await delivery('retrying', 2);
    expect(await store.cancel(retrying, 2)).toBe(false);
    expect(await store.cancel(retrying, 3)).toBe(true);
    expect((await stateOf(retrying)).status).toBe('cancelled');
    const first = await delivery('pending', 0);
    expect(await store.cancel(first, 1)).toBe(true);
    // Delivered after two attempts, then redelivered by hand: a stale copy of attempt 3 finds it pending.
    const byHand = await delivery('pending', 2);
    expect(await store.cancel(byHand, 3)).toBe(false);
    expect((await stateOf(byHand)).status).toBe('pending');
  });
});
