import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, declareExchanges, topologyNames } from '@feedback/messaging';
import { createMigratedTestDatabase, createTestNamespace, deleteBrokerObjects, resolveTestInfrastructure } from '@feedback/test-support';
import type { MigratedTestDatabase, TestInfrastructure } from '@feedback/test-support';
import amqplib from 'amqplib';
import type pg from 'pg';
import winston from 'winston';
import { migrateApiDatabase } from '../database.js';
import { OutboxRelay } from './relay.js';

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

describe('OutboxRelay', () => {
  it('keeps an event no queue takes yet (a first start, before the worker declares its queue) and publishes it once one does', async () => {
    const eventId = randomUUID();
    await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, 'suggestion.created', $2)`, [eventId, JSON.stringify({ id: eventId })]);
    const relay = new OutboxRelay(pool, publisher, names, logger);
    await expect(relay.publishBatch()).rejects.toThrow(/No queue is bound/);
    const unpublished = await pool.query('SELECT published_at FROM api.outbox_events WHERE event_id = $1', [eventId]);
    expect(unpublished.rows[0].published_at).toBeNull();

    const connection = await amqplib.connect(infrastructure.amqpUrl);
    try {
      const channel = await connection.createChannel();
      await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await channel.bindQueue(queue, names.domainEvents, '#');
      expect(await relay.publishBatch()).toBe(1);
      const message = await channel.get(queue, { noAck: true });
      expect(message && message.properties.messageId).toBe(eventId);
    } finally {
      await connection.close();
    }
    const published = await pool.query('SELECT published_at FROM api.outbox_events WHERE event_id = $1', [eventId]);
    expect(published.rows[0].published_at).not.toBeNull();
  });
});
