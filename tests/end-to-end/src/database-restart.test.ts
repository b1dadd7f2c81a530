import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import { topologyNames } from '@feedback/messaging';
import amqplib from 'amqplib';
import pg from 'pg';
import { call, createApp, signUpTeam } from './dashboard.js';
import { AMQP_URL, startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let key: string;
let broker: amqplib.ChannelModel;
/** The ids of the suggestions whose `suggestion.created` reached the broker. */
const published = new Set<number>();

beforeAll(async () => {
  system = await startSystem({}, { databaseProxy: true });
  const owner = await signUpTeam(system.api.url, 'pro');
  const app = await createApp(system.api.url, owner.token, 'Restart app');
  await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  key = app.secretKey;
  // A queue of the test's own beside the worker's, reached directly: what the relay published.
  broker = await amqplib.connect(AMQP_URL);
  const channel = await broker.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, topologyNames(system.namespace).domainEvents, 'suggestion.created');
  await channel.consume(queue, (message) => {
    if (message) published.add((JSON.parse(message.content.toString()) as { data: { suggestion: { id: number } } }).data.suggestion.id);
  }, { noAck: true });
}, 60_000);

afterAll(async () => {
  // Already closed if the broker restarted meanwhile (another test run on the machine's broker).
  await broker?.close().catch(() => undefined);
  await system?.stop();
});

const createSuggestion = (n: number) =>
  fetch(`${system.api.url}/api/v1/suggestions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ title: `Idea ${n}`, author: { external_id: `user-${n % 16}` } }),
  });

describe('a PostgreSQL restart', () => {
  it('ends no service, and loses no event, when every database connection is cut again and again under a stream of creations from 16 clients', async () => {
    const proxy = system.databaseProxy!;
    const statuses = new Map<number, number>();
    let created = 0;
    let sending = true;
    const clients = Array.from({ length: 16 }, async (_, client) => {
      for (let n = client; sending; n += 16) {
        const answer = await createSuggestion(n).catch(() => undefined);
        if (!answer) continue;
        await answer.arrayBuffer();
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 201) created += 1;
      }
    });
    try {
      for (let cut = 0; cut < 10; cut += 1) {
        // Cut only once creations go through again, so each cut meets requests, transactions and
        // relay batches in flight.
        const before = created;
        await eventually(() => (created >= before + 20 ? true : undefined), { timeoutMs: 30_000, what: 'creations to go through again' });
        proxy.interrupt();
        await new Promise((resolve) => setTimeout(resolve, 50));
        proxy.restore();
      }
    } finally {
      proxy.restore();
      sending = false;
      await Promise.all(clients);
    }
    expect(statuses.get(201)).toBeGreaterThan(0);
    // A request that met a cut is told to retry: 503, never 500.
    expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    // Whatever was stored, answered or not, went out: every suggestion's event reached the broker.
    const database = new pg.Client({ connectionString: system.databaseUrl });
    await database.connect();
    try {
      const { rows } = await database.query<{ id: number }>('SELECT id::int AS id FROM api.suggestions');
      expect(rows.length).toBeGreaterThanOrEqual(created);
      await eventually(() => (rows.every((row) => published.has(row.id)) ? true : undefined), { timeoutMs: 30_000, what: 'every suggestion\'s event on the broker' });
    } finally {
      await database.end();
    }
    expect((await createSuggestion(-1)).status).toBe(201);
  }, 120_000);
});
