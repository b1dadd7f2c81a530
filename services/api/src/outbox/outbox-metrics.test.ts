import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import pg from 'pg';
import { Registry } from 'prom-client';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { outboxMetrics } from './outbox-metrics.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger));
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

describe('outboxMetrics', () => {
  it('reads the backlog: how many events wait and how old the oldest is', async () => {
    const registry = new Registry();
    outboxMetrics(registry, database.pool);
    expect(gauge(await registry.metrics(), 'feedback_outbox_unpublished_events')).toBe(0);
    for (const minutesAgo of [10, 5]) {
      await database.pool.query(
        `INSERT INTO api.outbox_events (event_id, event_type, payload, created_at) VALUES ($1, 'suggestion.created', '{}', now() - make_interval(mins => $2))`,
        [randomUUID(), minutesAgo],
      );
    }
    await database.pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload, published_at) VALUES ($1, 'suggestion.created', '{}', now())`, [randomUUID()]);
    const text = await registry.metrics();
    expect(gauge(text, 'feedback_outbox_unpublished_events')).toBe(2);
    expect(gauge(text, 'feedback_outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(600);
    expect(gauge(text, 'feedback_outbox_oldest_unpublished_age_seconds')).toBeLessThan(660);
  });

  it('still answers a scrape while the database is away, with the backlog as last read', async () => {
    const registry = new Registry();
    // Nothing listens on port 1: every query fails at once.
    const away = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none' });
    away.on('error', () => undefined);
    outboxMetrics(registry, away);
    try {
      const text = await registry.metrics();
      expect(gauge(text, 'feedback_outbox_unpublished_events')).toBe(0);
      expect(text).toContain('feedback_outbox_events_published_total');
    } finally {
      await away.end();
    }
  });
});
