import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import winston from 'winston';
import { migrateWorkerDatabase } from '../database.js';
import { pruneDeliveries, pruneReceivedEvents } from './prune-delivery-history.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';
import { pruneEndedRecoveries } from './recoverer.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  pool = database.pool;
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

async function endpoint(): Promise<string> {
  return insertEndpoint(pool);
}

/** A delivery created `createdDaysAgo` and last changed `changedDaysAgo`, with one attempt. */
async function delivery(endpointId: string, status: string, createdDaysAgo: number, changedDaysAgo = createdDaysAgo): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts, created_at, updated_at)
     VALUES ($1, $2, $3, 'suggestion.created', 1, '{}', $4::webhooks."DeliveryStatus", 1,
             now() - make_interval(days => $5), now() - make_interval(days => $6))`,
    [id, endpointId, randomUUID(), status, createdDaysAgo, changedDaysAgo],
  );
  await pool.query(
    `INSERT INTO webhooks.delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_code)
     VALUES ($1, $2, 1, now(), 5, 204)`,
    [randomUUID(), id],
  );
  return id;
}

const kept = async () => (await pool.query<{ id: string }>('SELECT id FROM webhooks.deliveries')).rows.map((row) => row.id).sort();
const attemptsOf = async (ids: string[]) => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks.delivery_attempts WHERE delivery_id = ANY ($1::uuid[])', [ids])).rows[0]!.n;

describe('pruneDeliveries', () => {
  it('deletes settled and held deliveries unchanged for the retention, with their attempts, across endpoints and in batches', async () => {
    const [first, second] = [await endpoint(), await endpoint()];
    const old = [
      await delivery(first, 'delivered', 40),
      await delivery(first, 'abandoned', 35),
      await delivery(second, 'withheld', 31),
      await delivery(second, 'delivered', 45),
      await delivery(second, 'cancelled', 33),
      // Held while its endpoint was paused, kept as long as any history (docs/decisions.md).
      await delivery(first, 'held', 32),
    ];
    const recent = await delivery(first, 'delivered', 29);
    const stillRetrying = await delivery(first, 'retrying', 60);
    const stillPending = await delivery(second, 'pending', 60);
    // Created long ago, redelivered by hand last week: its recent attempt keeps it.
    const redeliveredLately = await delivery(second, 'delivered', 50, 7);

    expect(await pruneDeliveries(pool, { retentionDays: 30, batchSize: 3 })).toBe(old.length);
    expect(await kept()).toEqual([recent, stillRetrying, stillPending, redeliveredLately].sort());
    expect(await attemptsOf(old)).toBe(0);
    expect(await pruneDeliveries(pool, { retentionDays: 30 })).toBe(0);
  });

  it('keeps a delivery that a redelivery by hand marked pending while the prune waited for its row', async () => {
    await pool.query('DELETE FROM webhooks.deliveries');
    const redelivered = await delivery(await endpoint(), 'delivered', 40);
    // As redeliver does: the row locked while the attempt is queued, then marked pending.
    const redelivery = await pool.connect();
    try {
      await redelivery.query('BEGIN');
      await redelivery.query('SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [redelivered]);
      const pruning = pruneDeliveries(pool, { retentionDays: 30 });
      // The prune has chosen the row and waits for its lock.
      for (;;) {
        const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM webhooks.deliveries%'`);
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await redelivery.query(`UPDATE webhooks.deliveries SET status = 'pending', updated_at = now() WHERE id = $1`, [redelivered]);
      await redelivery.query('COMMIT');
      expect(await pruning).toBe(0);
    } finally {
      redelivery.release();
    }
    expect(await kept()).toEqual([redelivered]);
  });
});

describe('pruneReceivedEvents', () => {
  it('deletes events received before the retention, a batch at a time, and keeps recent ones', async () => {
    const received = async (daysAgo: number) => {
      const id = randomUUID();
      await pool.query(
        `INSERT INTO webhooks.received_events (event_id, event_type, app_id, occurred_at, received_at)
         VALUES ($1, 'suggestion.created', 1, now(), now() - make_interval(days => $2))`,
        [id, daysAgo],
      );
      return id;
    };
    await received(40);
    await received(31);
    await received(33);
    const recent = await received(1);
    expect(await pruneReceivedEvents(pool, { retentionDays: 30, batchSize: 2 })).toBe(3);
    expect((await pool.query<{ event_id: string }>('SELECT event_id FROM webhooks.received_events')).rows.map((row) => row.event_id)).toEqual([recent]);
  });

  it('deletes recoveries ended before the retention, and keeps running and recent ones', async () => {
    const endpointId = await endpoint();
    const recovery = async (state: string, endedDaysAgo: number | null) => {
      const id = randomUUID();
      await pool.query(
        `INSERT INTO webhooks.recoveries (id, endpoint_id, app_id, since, statuses, state, total, started_by, ended_at)
         VALUES ($1, $2, 1, now(), '{abandoned}', $3, 0, 'Olive', CASE WHEN $4::int IS NULL THEN NULL ELSE now() - make_interval(days => $4::int) END)`,
        [id, endpointId, state, endedDaysAgo],
      );
      return id;
    };
    await recovery('finished', 31);
    await recovery('cancelled', 40);
    const recent = await recovery('finished', 2);
    const running = await recovery('running', null);
    expect(await pruneEndedRecoveries(pool, 30)).toBe(2);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM webhooks.recoveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);
    expect(rows.map((row) => row.id)).toEqual([recent, running].sort());
  });
});
