import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, declareExchanges, topologyNames } from '@feedback/messaging';
import { createPool } from '@feedback/database';
import { TcpProxy, createMigratedTestDatabase, createTestNamespace, deleteBrokerObjects, eventually, resolveTestInfrastructure } from '@feedback/test-support';
import type { MigratedTestDatabase, TestInfrastructure } from '@feedback/test-support';
import amqplib from 'amqplib';
import type pg from 'pg';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { CLAIM_SETTINGS, OutboxRelay, claimStatement } from './relay.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const names = topologyNames(createTestNamespace());
const queue = `${names.namespace}worker-stand-in`;
let infrastructure: TestInfrastructure;
let database: MigratedTestDatabase;
let pool: pg.Pool;
let broker: Broker;
let publisher: ConfirmedPublisher;

beforeAll(async () => {
  infrastructure = await resolveTestInfrastructure();
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger), infrastructure);
  pool = database.pool;
  broker = Broker.connect({ url: infrastructure.amqpUrl, connectionName: 'relay-test', logger });
  await broker.waitUntilConnected(5000);
  publisher = new ConfirmedPublisher(broker, { name: 'relay-test', setup: (channel) => declareExchanges(channel, names) });
}, 60_000);

afterAll(async () => {
  await publisher?.close();
  await broker?.close();
  await deleteBrokerObjects(infrastructure.amqpUrl, { queues: [queue], exchanges: [names.domainEvents, names.authorityEvents] });
  await database?.drop();
  await infrastructure?.stop();
});

/** Binds the stand-in queue, so that the relay's mandatory publishes are taken. */
async function bindStandInQueue(): Promise<{ channel: amqplib.Channel; close: () => Promise<void> }> {
  const connection = await amqplib.connect(infrastructure.amqpUrl);
  const channel = await connection.createChannel();
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(queue, names.domainEvents, '#');
  return { channel, close: () => connection.close() };
}

/**
 * How many entries of the unpublished-events index a claim still has to look at: a bitmap index
 * scan counts every entry not yet marked dead, as a claim would see them.
 */
async function liveUnpublishedIndexEntries(): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN; SET LOCAL enable_indexscan = off; SET LOCAL enable_seqscan = off');
    const { rows } = await client
      .query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        'EXPLAIN (ANALYZE, FORMAT JSON) SELECT position FROM api.outbox_events WHERE published_at IS NULL ORDER BY position',
      )
      .finally(() => client.query('ROLLBACK'));
    const indexScan = findNode(rows[0]!['QUERY PLAN'][0]!.Plan, 'Bitmap Index Scan');
    expect(indexScan?.['Index Name']).toBe('outbox_events_unpublished_idx');
    return indexScan!['Actual Rows'];
  } finally {
    client.release();
  }
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Scan Direction'?: string;
  'Parent Relationship'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function indexEntriesRead(node: PlanNode): number {
  const own = node['Node Type'].startsWith('Index') ? node['Actual Rows'] * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + indexEntriesRead(child), 0);
}

function findNode(node: PlanNode, type: string): PlanNode | undefined {
  if (node['Node Type'] === type) return node;
  for (const child of node.Plans ?? []) {
    const found = findNode(child, type);
    if (found) return found;
  }
  return undefined;
}

describe('OutboxRelay', () => {
  it('keeps an event no queue takes yet (a first start, before the worker declares its queue) and publishes it once one does', async () => {
    const eventId = randomUUID();
    await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, 'suggestion.created', $2)`, [eventId, JSON.stringify({ id: eventId })]);
    const relay = new OutboxRelay(pool, publisher, names, logger);
    await expect(relay.publishBatch()).rejects.toThrow(/No queue is bound/);
    const unpublished = await pool.query('SELECT published_at FROM api.outbox_events WHERE event_id = $1', [eventId]);
    expect(unpublished.rows[0].published_at).toBeNull();

    const standIn = await bindStandInQueue();
    try {
      expect(await relay.publishBatch()).toBe(1);
      const message = await standIn.channel.get(queue, { noAck: true });
      expect(message && message.properties.messageId).toBe(eventId);
    } finally {
      await standIn.close();
    }
    const published = await pool.query('SELECT published_at FROM api.outbox_events WHERE event_id = $1', [eventId]);
    expect(published.rows[0].published_at).not.toBeNull();
  });

  it('holds the events it is publishing, so that an erasure withholding one waits for the batch and then finds it published', async () => {
    const eventId = randomUUID();
    await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, 'suggestion.created', $2)`, [eventId, JSON.stringify({ id: eventId })]);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let publishing = (): void => undefined;
    const started = new Promise<void>((resolve) => (publishing = resolve));
    // The real publisher, held back while the erasure starts: a batch waiting for the broker.
    const heldBack = {
      publish: async (...args: Parameters<ConfirmedPublisher['publish']>) => {
        publishing();
        await gate;
        return publisher.publish(...args);
      },
    } as unknown as ConfirmedPublisher;
    const relay = new OutboxRelay(pool, heldBack, names, logger);
    const standIn = await bindStandInQueue();
    let batch: Promise<number> | undefined;
    let withholding: Promise<pg.QueryResult> | undefined;
    try {
      await standIn.channel.purgeQueue(queue);
      batch = relay.publishBatch();
      // A claim that fails ends the test here instead of leaving it waiting.
      await Promise.race([started, batch]);
      // A statement that withholds the event, as an erasure's does (privacy/user-data.ts).
      withholding = pool.query('DELETE FROM api.outbox_events WHERE published_at IS NULL AND event_id = $1', [eventId]);
      await eventually(
        async () => {
          const { rows } = await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n === 1 ? true : undefined;
        },
        { timeoutMs: 5000, what: 'the erasure to wait for the batch being published' },
      );
      release();
      expect(await batch).toBe(1);
      expect((await withholding).rowCount).toBe(0);
      const message = await standIn.channel.get(queue, { noAck: true });
      expect(message && message.properties.messageId).toBe(eventId);
    } finally {
      release();
      // Neither is left running into the next test, whatever failed.
      await Promise.allSettled([batch, withholding]);
      await standIn.close();
    }
  });

  it('claims nothing while the broker connection is down, and publishes once it is back', async () => {
    const eventId = randomUUID();
    let connected = false;
    let publishes = 0;
    // The real publisher, with its connection state chosen here.
    const switchable = {
      get connected() {
        return connected;
      },
      publish: (...args: Parameters<ConfirmedPublisher['publish']>) => {
        publishes += 1;
        return publisher.publish(...args);
      },
    } as unknown as ConfirmedPublisher;
    const relay = new OutboxRelay(pool, switchable, names, logger, { retryDelayMs: 100 });
    const standIn = await bindStandInQueue();
    try {
      await standIn.channel.purgeQueue(queue);
      await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, 'suggestion.created', $2)`, [eventId, JSON.stringify({ id: eventId })]);
      relay.start();
      relay.wake();
      // Several retries' worth: none claims the event (it would stay locked by its batch for the
      // confirm timeout, and an erasure with it), none publishes.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(publishes).toBe(0);
      const free = await pool.query('SELECT published_at FROM api.outbox_events WHERE event_id = $1 FOR UPDATE NOWAIT', [eventId]);
      expect(free.rows[0].published_at).toBeNull();

      connected = true;
      const message = await eventually(() => standIn.channel.get(queue, { noAck: true }).then((got) => got || undefined), {
        what: 'the event published once the connection is back',
      });
      expect(message.properties.messageId).toBe(eventId);
      expect(publishes).toBe(1);
    } finally {
      await relay.stop();
      await standIn.close();
    }
  });

  it('leaves the next claim only the unpublished events to look at, however many were published since the last VACUUM', async () => {
    // Statistics taken while the outbox was empty, as after a quiet night: once the table has
    // grown, the planner would prefer a bitmap scan, which never marks the published rows' old
    // index entries dead.
    await pool.query('DELETE FROM api.outbox_events');
    await pool.query('VACUUM ANALYZE api.outbox_events');
    const events = 6000;
    await pool.query(
      `INSERT INTO api.outbox_events (event_id, event_type, payload)
       SELECT gen_random_uuid(), 'suggestion.created', jsonb_build_object('n', n) FROM generate_series(1, $1) AS n`,
      [events],
    );
    const relay = new OutboxRelay(pool, publisher, names, logger, { batchSize: 200 });
    const standIn = await bindStandInQueue();
    try {
      let published = 0;
      for (let batch = await relay.publishBatch(); batch > 0; batch = await relay.publishBatch()) published += batch;
      expect(published).toBe(events);
      await standIn.channel.purgeQueue(queue);
    } finally {
      await standIn.close();
    }
    // The stamps commit without waiting for the disk, and PostgreSQL marks an entry dead only once
    // its stamp's commit is on disk (the WAL writer's next round, within 200 ms): a claim after
    // that does. Without the ordered index scan, no claim ever does.
    await eventually(
      async () => {
        expect(await relay.publishBatch()).toBe(0);
        return (await liveUnpublishedIndexEntries()) === 0 ? true : undefined;
      },
      { timeoutMs: 5000, what: 'the published events\' index entries to be marked dead' },
    );
  });

  it('claims from a backlog its statistics never saw in one walk of the index, not one walk per waiting event', async () => {
    // Statistics taken while every event was published, as before a broker outage: then thousands wait.
    await pool.query('DELETE FROM api.outbox_events');
    await pool.query(
      `INSERT INTO api.outbox_events (event_id, event_type, payload, published_at)
       SELECT gen_random_uuid(), 'suggestion.created', '{}', now() FROM generate_series(1, 2000)`,
    );
    await pool.query('VACUUM ANALYZE api.outbox_events');
    await pool.query(
      `INSERT INTO api.outbox_events (event_id, event_type, payload)
       SELECT gen_random_uuid(), 'suggestion.created', '{}' FROM generate_series(1, 3000)`,
    );
    const client = await pool.connect();
    try {
      await client.query(`BEGIN;${CLAIM_SETTINGS}`);
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${claimStatement(200)}`);
      await client.query('ROLLBACK');
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      // Every index entry read, over every time its scan ran: about two per event claimed.
      expect(indexEntriesRead(plan)).toBeLessThanOrEqual(2 * 200 + 10);
      expect(plan['Actual Rows']).toBe(200);
      // The stamp walks an index forward through the gathered positions: rows are locked in
      // position order, the order an erasure locks in.
      const stamp = findNode(plan, 'ModifyTable')!.Plans!.find((child) => child['Parent Relationship'] === 'Outer');
      expect(stamp).toMatchObject({ 'Node Type': 'Index Scan', 'Scan Direction': 'Forward', 'Index Cond': expect.stringContaining('= ANY') });
    } finally {
      client.release();
      await pool.query('DELETE FROM api.outbox_events');
    }
  });

  it('loses no event, and keeps the process alive, when its database connection is cut again and again while a batch is being published', async () => {
    const target = new URL(database.url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = createPool({ connectionString: proxy.urlFor(database.url), logger, max: 2 });
    // The connection the relay holds for its batch.
    let held: pg.PoolClient | undefined;
    proxied.on('acquire', (client) => (held = client));
    let cutNext = false;
    // The real publisher; when told to, it first cuts the batch's database connection and waits
    // until node-postgres has given it up, failing its queries and emitting 'error' on it, while
    // the relay holds it.
    const cutting = {
      publish: async (...args: Parameters<ConfirmedPublisher['publish']>) => {
        if (cutNext) {
          cutNext = false;
          proxy.interrupt();
          await expect(held!.query('SELECT 1')).rejects.toThrow(/terminated/);
        }
        return publisher.publish(...args);
      },
    } as unknown as ConfirmedPublisher;
    const relay = new OutboxRelay(proxied, cutting, names, logger);
    const standIn = await bindStandInQueue();
    const written: string[] = [];
    try {
      await standIn.channel.purgeQueue(queue);
      for (let cut = 0; cut < 20; cut += 1) {
        const eventId = randomUUID();
        written.push(eventId);
        await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, 'suggestion.created', $2)`, [eventId, JSON.stringify({ id: eventId })]);
        cutNext = true;
        await expect(relay.publishBatch()).rejects.toThrow(/not queryable|terminated/);
        proxy.restore();
      }
      while ((await relay.publishBatch()) > 0);
      const unpublished = await pool.query('SELECT event_id FROM api.outbox_events WHERE event_id = ANY($1) AND published_at IS NULL', [written]);
      expect(unpublished.rows).toEqual([]);
      const received = new Set<string>();
      for (let message = await standIn.channel.get(queue, { noAck: true }); message; message = await standIn.channel.get(queue, { noAck: true })) {
        received.add(message.properties.messageId as string);
      }
      // Each cut batch was confirmed by the broker but not stamped: published again, never lost.
      expect(written.filter((eventId) => !received.has(eventId))).toEqual([]);
    } finally {
      await standIn.close();
      await proxied.end();
      await proxy.close();
    }
  });
});
