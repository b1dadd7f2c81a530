import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import type { ChannelModel } from 'amqplib';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { topologyNames } from '@feedback/messaging';
import { webhookQueueNames } from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import { AMQP_URL, healthUrl, startSystem } from './system.js';
import { readWorkerConfig } from '../../../services/webhook-worker/src/service.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let secretKey: string;
let probe: ChannelModel;
let target: HttpsReceiver;
/** Event ids in the order the broker delivered them to a queue of the test's own. */
const delivered: string[] = [];

beforeAll(async () => {
  // A cache lifetime short enough to see an api instance's lease end during an outage.
  system = await startSystem({ KEY_CACHE_TTL_MS: '15000' });
  const owner = await signUpTeam(system.api.url, 'starter');
  const created = await createApp(system.api.url, owner.token, 'Outage app');
  await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${created.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  secretKey = created.secretKey;
  target = await HttpsReceiver.start(testCertificates().trusted);
  // Directly on the broker, not through the proxy the services use: it sees what they publish.
  probe = await amqplib.connect(AMQP_URL);
  const channel = await probe.createChannel();
  const exchange = `${system.namespace}domain.events`;
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, '#');
  await channel.consume(queue, (message) => message && delivered.push(String(message.properties.messageId)), { noAck: true });
}, 60_000);

// A test that fails during its outage must not leave the next one without a broker.
afterEach(() => system?.brokerProxy.restore());

afterAll(async () => {
  await target?.close();
  await probe?.close();
  await system?.stop();
});

function createSuggestion(title: string) {
  return call(system.api.url, 'POST', '/api/v1/suggestions', {
    key: secretKey,
    body: { title, author: { external_id: 'u-1', name: null } },
  });
}

const readiness = async (url: string) => (await fetch(`${url}/health/ready`)).status;

describe('a broker outage', () => {
  it('does not stop requests: events wait in the outbox and are all published afterwards, in order, once each', async () => {
    const urls = [system.api.url, healthUrl(system.authority), healthUrl(system.worker)];
    await eventually(async () => ((await createSuggestion('before')).status === 201 ? true : undefined), { what: 'first request' });
    await eventually(() => (delivered.length === 1 ? true : undefined), { what: 'the first event' });
    // Its confirm travels through the proxy, behind the probe's copy: cut before it arrives, the
    // event would rightly be published again, and this test counts on one of each.
    await eventually(async () => ((await system.api.prisma.outboxEvent.count({ where: { publishedAt: null } })) === 0 ? true : undefined), {
      what: 'the first event stamped published',
    });

    system.brokerProxy.interrupt();
    for (const url of urls.slice(1)) {
      await eventually(async () => ((await readiness(url)) === 503 ? true : undefined), { what: `${url} not ready` });
    }
    // The key was verified before the outage and this instance's lease still runs: requests
    // succeed, and the api stays ready, so a load balancer keeps sending them.
    const degraded = await fetch(`${system.api.url}/health/ready`);
    expect({ status: degraded.status, body: await degraded.json() }).toMatchObject({ status: 200, body: { status: 'ready', checks: { broker: 'degraded' } } });
    for (const title of ['during 1', 'during 2', 'during 3']) {
      expect((await createSuggestion(title)).status).toBe(201);
    }
    const waiting = await system.api.prisma.outboxEvent.count({ where: { publishedAt: null } });
    expect(waiting).toBe(3);
    // Once its lease has ended it can answer nothing that needs a key: out of rotation.
    const answer = await eventually(async () => {
      const ready = await fetch(`${system.api.url}/health/ready`);
      return ready.status === 503 ? ((await ready.json()) as unknown) : undefined;
    }, { what: 'the api not ready once its lease has ended', timeoutMs: 25_000 });
    expect(answer).toMatchObject({ status: 'not_ready', checks: { broker: 'down', database: 'up' } });

    system.brokerProxy.restore();
    for (const url of urls) {
      await eventually(async () => ((await readiness(url)) === 200 ? true : undefined), { what: `${url} ready again`, timeoutMs: 20_000 });
    }
    expect((await createSuggestion('after')).status).toBe(201);

    const outbox = await system.api.prisma.outboxEvent.findMany({ orderBy: { position: 'asc' } });
    await eventually(() => (delivered.length >= outbox.length ? true : undefined), { what: 'every event to be published', timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300)); // a duplicate would arrive now
    expect(delivered).toEqual(outbox.map((row) => row.eventId));
    await eventually(async () => ((await system.worker.prisma.receivedEvent.count()) === outbox.length ? true : undefined), {
      what: 'the worker to receive each event once',
    });
  }, 90_000);

  it.each([
    [1, "the event's own handler"],
    [2, 'the deliver queue'],
  ])('loses no retry when the connection drops between recording failed attempt %i (made by %s) and queuing its retry', async (stalled) => {
    const owner = await signUpTeam(system.api.url, 'pro');
    const app = await createApp(system.api.url, owner.token, `Retry app ${stalled}`);
    await call(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
      token: owner.token,
      body: { name: 'Receiver', url: target.url(), events: ['suggestion.created'] },
    });
    // Attempts up to `stalled` fail; while attempt `stalled` is in flight the broker stops
    // listening, so the worker records the failure but the retry it queues never reaches the
    // broker, and then the connection drops.
    const before = target.received.length;
    let stalledTextBefore = 0;
    target.answer = (_request, index) => {
      const number = index - before + 1;
      if (number === stalled) {
        stalledTextBefore = system.brokerProxy.stalledText.length;
        system.brokerProxy.stallClients();
      }
      return { status: number <= stalled ? 503 : 200 };
    };
    const { retryDelaysMs, throttleDelaysMs } = readWorkerConfig(system.env).config;
    const retryQueue = webhookQueueNames(topologyNames(system.namespace), retryDelaysMs, throttleDelaysMs).retries[stalled - 1]!.queue;
    await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: app.publicKey, body: { title: 'Retried', user: { external_id: 'u-2' } } });
    const retrying = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { appId: app.appId, status: 'retrying', attempts: stalled } }).then((row) => row ?? undefined),
      { what: `failed attempt ${stalled} to be recorded` },
    );
    // The retry's publish (its routing key, the retry queue), written after the record and lost:
    // only then is the drop the one named.
    await eventually(() => (system.brokerProxy.stalledText.slice(stalledTextBefore).includes(retryQueue) ? true : undefined), {
      what: 'the retry written into the stalled connection',
    });
    system.brokerProxy.interrupt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    system.brokerProxy.restore();

    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { id: retrying.id, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'the retry after the connection returned', timeoutMs: 20_000 },
    );
    // Every request with the same id. The retry may have been queued twice (by the worker that
    // lost it, once reconnected, and for the message given again), and two copies made at the
    // same moment both sent: at least once, as the specification allows, and recorded once.
    const ids = target.received.slice(before).map((request) => request.headers['x-service-delivery']);
    expect(ids.length).toBeGreaterThanOrEqual(stalled + 1);
    expect(new Set(ids)).toEqual(new Set([retrying.id]));
    const attempts = await system.worker.prisma.deliveryAttempt.findMany({ where: { deliveryId: retrying.id }, orderBy: { number: 'asc' } });
    expect(attempts.map((attempt) => [attempt.number, attempt.responseCode])).toEqual([
      ...Array.from({ length: stalled }, (_, n) => [n + 1, 503]),
      [stalled + 1, 200],
    ]);
  }, 60_000);
});
