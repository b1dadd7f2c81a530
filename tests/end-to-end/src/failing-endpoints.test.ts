import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { topologyNames } from '@feedback/messaging';
import { webhookQueueNames } from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { WebhookVerificationError, verify } from '@feedback/webhook-signature';
import { call, createApp, signUpTeam } from './dashboard.js';
import { AMQP_URL, startSystem } from './system.js';
import { readWorkerConfig } from '../../../services/webhook-worker/src/service.js';
import type { RunningSystem } from './system.js';

// A worker with 8 slots, 4 per endpoint: four stalling endpoints at their usual share would take
// all 8 (16 wanted) and the healthy endpoint would wait behind them.
let system: RunningSystem;
const receivers: HttpsReceiver[] = [];

beforeAll(async () => {
  // Held answers must outlast whatever the test does meanwhile, however slow the machine.
  // The throttle ladder shortened from 1, 5 and 30 s (the first rung as in production), and
  // climbed by a struggling endpoint that answers once more than 2 of its attempts a second find
  // no slot (100 in production), so that a test's few deliveries are a large backlog.
  system = await startSystem({
    DELIVERY_PREFETCH: '8',
    PER_ENDPOINT_CONCURRENCY: '4',
    // One team alone may take the whole worker here: these tests are about endpoints, not teams.
    PER_TEAM_CONCURRENCY: '8',
    WEBHOOK_TIMEOUT_MS: '30000',
    WEBHOOK_THROTTLE_DELAYS_MS: '1000,1500,4000',
    WEBHOOK_THROTTLE_CLIMB_PER_SECOND: '2',
  });
}, 60_000);

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await system?.stop();
});

/** A local HTTPS receiver, and an endpoint of the app pointing at it for these events. */
async function receiverWithEndpoint(token: string, appId: number, events: string[]) {
  const receiver = await HttpsReceiver.start(testCertificates().trusted);
  receivers.push(receiver);
  const created = await call<{ endpoint: { id: string }; signing_secret: string }>(system.api.url, 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
    token,
    body: { name: 'Receiver', url: receiver.url(), events },
  });
  expect(created.status).toBe(201);
  return { receiver, endpointId: created.body.endpoint.id, secret: created.body.signing_secret };
}

describe('several stalling endpoints', () => {
  it('take at most half of a worker between them, so a healthy endpoint keeps its slots', async () => {
    const owner = await signUpTeam(system.api.url, 'pro');
    const { appId, publicKey } = await createApp(system.api.url, owner.token, 'Stalling app');
    const start = () => receiverWithEndpoint(owner.token, appId, ['suggestion.created']);
    // The stalling endpoints answer their first attempt after 1.5 s (past the 1 s that marks an
    // endpoint as struggling), and every later one only when the test lets them go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const stalling = await Promise.all(Array.from({ length: 4 }, start));
    for (const { receiver } of stalling) receiver.answer = (_request, index) => (index === 0 ? { status: 200, delayMs: 1_500 } : { status: 200, until: held });
    const healthy = await start();
    const suggest = (title: string) =>
      call(system.api.url, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title, user: { external_id: 'u-1' } } });

    try {
      // One event first, so that each stalling endpoint's slow answer marks it as struggling.
      await suggest('First');
      await eventually(
        () => system.worker.prisma.delivery.count({ where: { endpointId: { in: stalling.map((one) => one.endpointId) }, attempts: 1 } }).then((n) => (n === 4 ? true : undefined)),
        { what: 'the first attempt at each stalling endpoint to be recorded', timeoutMs: 20_000 },
      );

      for (let n = 0; n < 12; n += 1) await suggest(`Burst ${n}`);
      await eventually(() => (healthy.receiver.received.length === 13 ? true : undefined), { what: 'the burst at the healthy endpoint', timeoutMs: 20_000 });
      // Nothing held has been answered yet: what the stalling endpoints received of the burst is
      // what they hold at once. At their usual share it would be all 8 slots, and the healthy
      // endpoint would be waiting behind them.
      const received = stalling.map(({ receiver }) => receiver.received.length - 1);
      expect(received.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(4);
      expect(received.every((n) => n <= 2)).toBe(true);
    } finally {
      release();
    }
  }, 60_000);
});

describe('an attempt that waits for a slot', () => {
  it('is signed with the secret as it is when its turn comes, not as it was when it was queued', async () => {
    const owner = await signUpTeam(system.api.url, 'pro');
    const { appId, publicKey } = await createApp(system.api.url, owner.token, 'Rotating app');
    const start = (events: string[]) => receiverWithEndpoint(owner.token, appId, events);
    // Two endpoints whose answers the test holds take all 8 of the worker's slots (4 each).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = await Promise.all([start(['ticket.created']), start(['ticket.created'])]);
    for (const { receiver } of holding) receiver.answer = () => ({ status: 200, until: held });
    const rotating = await start(['suggestion.created']);
    try {
      for (let n = 0; n < 4; n += 1) {
        await call(system.api.url, 'POST', '/widget/v1/tickets', { key: publicKey, body: { subject: `Held ${n}`, body: 'x', user: { external_id: 'u-1' } } });
      }
      await eventually(() => (holding.every(({ receiver }) => receiver.received.length === 4) ? true : undefined), { what: 'every slot taken' });
      await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'Waits', user: { external_id: 'u-1' } } });
      // Fanned out: its first attempt is queued in the worker, behind the held ones.
      await eventually(() => system.worker.prisma.delivery.findFirst({ where: { endpointId: rotating.endpointId } }).then((row) => row ?? undefined), { what: 'the delivery' });
      const rotated = await call<{ signing_secret: string }>(system.api.url, 'POST', `/dashboard/v1/apps/${appId}/webhooks/${rotating.endpointId}/rotate-secret`, { token: owner.token });
      expect(rotated.status).toBe(200);
      release();
      const [request] = await eventually(() => (rotating.receiver.received.length > 0 ? rotating.receiver.received : undefined), { what: 'the queued attempt' });
      const header = request!.headers['x-service-signature'] as string;
      expect(() => verify(request!.body, header, rotated.body.signing_secret)).not.toThrow();
      expect(() => verify(request!.body, header, rotating.secret)).toThrow(WebhookVerificationError);
    } finally {
      release();
    }
  }, 60_000);
});

/**
 * An endpoint of a new app, whose first answer is `first` and which holds every later request
 * until `release()` (its slots stay taken); with what the throttle tests watch.
 */
async function heldEndpoint(appName: string, first: { status: number; delayMs?: number }) {
  const owner = await signUpTeam(system.api.url, 'pro');
  const { appId, publicKey } = await createApp(system.api.url, owner.token, appName);
  const { receiver, endpointId } = await receiverWithEndpoint(owner.token, appId, ['suggestion.created']);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  receiver.answer = (_request, index) => (index === 0 ? first : { status: 200, until: held });
  const { retryDelaysMs, throttleDelaysMs } = readWorkerConfig(system.env).config;
  const queues = webhookQueueNames(topologyNames(system.namespace), retryDelaysMs, throttleDelaysMs);
  const connection = await amqplib.connect(AMQP_URL);
  const channel = await connection.createChannel();
  return {
    receiver,
    endpointId,
    release,
    suggest: (title: string) => call(system.api.url, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title, user: { external_id: 'u-1' } } }),
    /** Single messages waiting in each throttle queue, the first rung first. */
    waitingIn: () => Promise.all(queues.throttles.map(async ({ queue }) => (await channel.checkQueue(queue)).messageCount)),
    /** Group messages waiting on the last rung: attempts turned away at the same moment wait there together. */
    groupsWaiting: async () => (await channel.checkQueue(queues.throttleGroups.queue)).messageCount,
    /** Messages ready in the deliver queues, single and group: none waits there for long. */
    readyToDeliver: async () => (await channel.checkQueue(queues.deliver)).messageCount + (await channel.checkQueue(queues.deliverGroups)).messageCount,
    delivered: () => system.worker.prisma.delivery.count({ where: { endpointId, status: 'delivered' } }),
    async close() {
      release();
      await connection.close().catch(() => undefined);
    },
  };
}

describe('attempts waiting for an endpoint that is down', () => {
  it('wait longer each time they find no slot, not once a second for as long as it is down; and go once it answers', async () => {
    // It fails its first attempt at once (so the endpoint is failing), then holds every request:
    // a receiver that went down with its connections left open.
    const endpoint = await heldEndpoint('Down app', { status: 503 });
    const { receiver, endpointId, suggest } = endpoint;
    try {
      await suggest('First');
      // Its retry (50 ms later) takes one of the 2 slots a struggling endpoint has, and is held.
      await eventually(() => (receiver.received.length === 2 ? true : undefined), { what: 'the failed attempt and its retry', timeoutMs: 20_000 });
      for (let n = 0; n < 6; n += 1) await suggest(`Waiting ${n}`);
      // One more takes the second slot; five find none, and climb the ladder: 1 s, 1.5 s, then 4 s
      // at every return, in groups there. (Once a second, they would never be on the last rung.)
      await eventually(() => (receiver.received.length === 3 ? true : undefined), { what: 'the second slot taken', timeoutMs: 20_000 });
      const onLastRung = async () => (await endpoint.waitingIn()).join(',') === '0,0,0' && (await endpoint.readyToDeliver()) === 0 && (await endpoint.groupsWaiting()) >= 1;
      await eventually(async () => ((await onLastRung()) ? true : undefined), { what: 'the five waiting together on the last rung', timeoutMs: 20_000 });
      // They stay there: none goes round the shorter waits again.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect((await endpoint.waitingIn()).join(',')).toBe('0,0,0');
      // Waiting is not an attempt (and the two held are recorded once answered).
      const waiting = await system.worker.prisma.delivery.findMany({ where: { endpointId }, select: { attempts: true } });
      expect(waiting.map((delivery) => delivery.attempts).sort()).toEqual([0, 0, 0, 0, 0, 0, 1]);

      // It answers again: the held requests succeed, and the five go at their next return.
      endpoint.release();
      await eventually(async () => ((await endpoint.delivered()) === 7 ? true : undefined), { what: 'all seven delivered', timeoutMs: 20_000 });
      const attempts = await system.worker.prisma.delivery.findMany({ where: { endpointId }, select: { attempts: true } });
      expect(attempts.map((delivery) => delivery.attempts).sort()).toEqual([1, 1, 1, 1, 1, 1, 2]);
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});

describe('attempts waiting for an endpoint that answers slowly, behind a backlog far larger than it takes', () => {
  it('climb the ladder too, and go once it answers', async () => {
    // Its first answer is good but slow: the endpoint is struggling, not failing.
    const endpoint = await heldEndpoint('Slow app', { status: 200, delayMs: 1_200 });
    const { receiver, suggest } = endpoint;
    try {
      await suggest('First');
      await eventually(async () => ((await endpoint.delivered()) === 1 ? true : undefined), { what: 'the slow first delivery', timeoutMs: 20_000 });
      for (let n = 0; n < 10; n += 1) await suggest(`Backlog ${n}`);
      // Two take the 2 slots of a struggling endpoint; the eight others come back to find none.
      // The first 2 each second keep the 1-second wait, the others climb: most of them are on
      // the last rung at once. (At the shortest wait, with a slow endpoint, none would ever be.)
      await eventually(() => (receiver.received.length === 3 ? true : undefined), { what: 'both slots taken', timeoutMs: 20_000 });
      // Of the eight, at most three on the shorter waits: the rest wait in groups on the last rung.
      const mostOnLastRung = async () =>
        (await endpoint.groupsWaiting()) >= 1 && (await endpoint.readyToDeliver()) === 0 && (await endpoint.waitingIn()).reduce((sum, count) => sum + count, 0) <= 3;
      await eventually(async () => ((await mostOnLastRung()) ? true : undefined), { what: 'most of the backlog on the last rung', timeoutMs: 30_000 });

      endpoint.release();
      await eventually(async () => ((await endpoint.delivered()) === 11 ? true : undefined), { what: 'all eleven delivered', timeoutMs: 30_000 });
    } finally {
      await endpoint.close();
    }
  }, 90_000);
});

describe('attempts waiting for a healthy endpoint, behind a backlog', () => {
  it('keep the 1-second wait, so they come back spread over the second to refill its line', async () => {
    // Its first answer is good and fast: healthy, and it stays so while its 4 slots are held.
    const endpoint = await heldEndpoint('Busy app', { status: 200 });
    const { receiver, suggest } = endpoint;
    try {
      await suggest('First');
      await eventually(() => (receiver.received.length === 1 ? true : undefined), { what: 'the fast first delivery', timeoutMs: 20_000 });
      for (let n = 0; n < 24; n += 1) await suggest(`Backlog ${n}`);
      await eventually(() => (receiver.received.length === 5 ? true : undefined), { what: 'its 4 slots taken', timeoutMs: 20_000 });
      // More than 2 a second find no slot (8 wait in line, the worker's share), yet none climbs.
      await eventually(async () => ((await endpoint.waitingIn())[0]! >= 3 ? true : undefined), { what: 'attempts throttled', timeoutMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await endpoint.waitingIn()).slice(1)).toEqual([0, 0]);
      expect(await endpoint.groupsWaiting()).toBe(0);
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});

describe('a plan change while the worker is away', () => {
  // Last in this file: it stops this system's worker.
  it('applies at once: the authority asks the worker nothing, and the change waits for it in its queue', async () => {
    const owner = await signUpTeam(system.api.url, 'pro');
    await system.worker.stop();
    const changed = await call<{ plan: string }>(system.api.url, 'PATCH', '/dashboard/v1/team', { token: owner.token, body: { plan: 'starter' } });
    expect(changed.status).toBe(200);
    expect((await call<{ plan: string }>(system.api.url, 'GET', '/dashboard/v1/team', { token: owner.token })).body.plan).toBe('starter');
    const names = topologyNames(system.namespace);
    const connection = await amqplib.connect(system.amqpUrls['webhook-worker']);
    try {
      const channel = await connection.createChannel();
      expect((await channel.checkQueue(names.workerPlanChangesQueue)).messageCount).toBeGreaterThanOrEqual(1);
    } finally {
      await connection.close();
    }
  }, 30_000);
});
