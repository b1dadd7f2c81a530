import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { pruneOutbox } from './prune-outbox.js';

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

/** Writes one outbox event, published that many hours ago (null: not published). */
async function eventPublished(hoursAgo: number | null): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO api.outbox_events (event_id, event_type, payload, created_at, published_at)
     VALUES ($1, 'suggestion.created', '{}', now() - make_interval(hours => 400), CASE WHEN $2::int IS NULL THEN NULL ELSE now() - make_interval(hours => $2::int) END)`,
    [id, hoursAgo],
  );
  return id;
}

const remaining = async () => (await pool.query<{ event_id: string }>('SELECT event_id FROM api.outbox_events ORDER BY position')).rows.map((row) => row.event_id);

describe('pruneOutbox', () => {
  it('deletes published events past the retention, a batch at a time, and keeps recent and unpublished ones', async () => {
    const old = [await eventPublished(200), await eventPublished(190), await eventPublished(170)];
    const recent = await eventPublished(2);
    const unpublished = await eventPublished(null);
    const options = { retentionHours: 168, batchSize: 2 };
    expect(await pruneOutbox(pool, options)).toBe(old.length);
    expect(await remaining()).toEqual([recent, unpublished]);
    expect(await pruneOutbox(pool, options)).toBe(0);
  });

  it('leaves the table set for autovacuum to visit it often and clean its indexes (the claim reads past what it has not removed)', async () => {
    const { rows } = await pool.query<{ options: string[] }>(`SELECT reloptions AS options FROM pg_class WHERE oid = 'api.outbox_events'::regclass`);
    expect(rows[0]!.options).toEqual(
      expect.arrayContaining(['autovacuum_vacuum_scale_factor=0.01', 'autovacuum_vacuum_insert_scale_factor=0.01', 'autovacuum_analyze_scale_factor=0.01', 'vacuum_index_cleanup=on']),
    );
  });

  it('never deletes an unpublished event, however old, nor what comes after it', async () => {
    await pool.query('DELETE FROM api.outbox_events');
    const waiting = await eventPublished(null);
    const after = await eventPublished(300);
    expect(await pruneOutbox(pool, { retentionHours: 1 })).toBe(0);
    expect(await remaining()).toEqual([waiting, after]);
  });
});
