import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase, eventually } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import pg from 'pg';
import winston from 'winston';
import { connectWorkerDatabase, migrateWorkerDatabase } from '../database.js';
import type { WorkerDatabase } from '../database.js';
import { recordErasure } from './domain-events.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

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
        user_hash: createHash('sha256').update('1:u-1').digest('hex'),
      });
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
});
