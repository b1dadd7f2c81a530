import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import winston from 'winston';
import { createLogger } from '@feedback/logging';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { verify } from '@feedback/webhook-signature';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { readWorkerConfig, startWorker } from '../../../services/webhook-worker/src/service.js';
import type { WorkerService } from '../../../services/webhook-worker/src/service.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
let publicKey: string;
let secretKey: string;
const receivers: HttpsReceiver[] = [];
const url = () => system.api.url;
/** The worker whose database client the test reads with: the system's, until a test stops it. */
let live: WorkerService;

beforeAll(async () => {
  system = await startSystem();
  live = system.worker;
  owner = await signUpTeam(url(), 'pro');
  ({ appId, publicKey, secretKey } = await createApp(url(), owner.token, 'Recovering app'));
}, 60_000);

afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

afterAll(async () => {
  await system?.stop();
});

async function receiverWithEndpoint(events = ['suggestion.created']) {
  const receiver = await HttpsReceiver.start(testCertificates().trusted);
  receivers.push(receiver);
  const created = await call<{ endpoint: { id: string }; signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: receiver.url(), events },
  });
  expect(created.status).toBe(201);
  return { receiver, endpointId: created.body.endpoint.id, secret: created.body.signing_secret };
}

const suggest = (title: string, externalId = 'u-1') =>
  call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title, user: { external_id: externalId, name: 'Ada' } } });

interface Recovery {
  id: string;
  state: string;
  total: number;
  delivered: number;
  failed: number;
  skipped: number;
  remaining: number;
}

const recoveryPath = (endpointId: string, id = '') => `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/recoveries${id ? `/${id}` : ''}`;

async function untilRecoveryEnds(endpointId: string, id: string, timeoutMs = 30_000): Promise<Recovery> {
  return eventually(
    async () => {
      const answer = await call<Recovery>(url(), 'GET', recoveryPath(endpointId, id), { token: owner.token });
      return answer.body.state === 'running' ? undefined : answer.body;
    },
    { what: 'the recovery to end', timeoutMs, intervalMs: 200 },
  );
}

/** Abandoned deliveries of the endpoint, written straight to the table as a long outage leaves them. */
async function abandonedDeliveries(endpointId: string, count: number): Promise<void> {
  await live.prisma.$executeRaw`
    INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts, created_at, updated_at)
    SELECT id, ${endpointId}::uuid, gen_random_uuid(), 'suggestion.created', ${appId}::int,
           jsonb_build_object('id', id, 'event', 'suggestion.created', 'created_at', now(), 'app', jsonb_build_object('id', ${appId}::int, 'public_key', ${publicKey}::text),
             'data', jsonb_build_object('n', n, 'author', jsonb_build_object('external_id', 'u-1', 'name', 'Ada'), 'sender', jsonb_build_object('type', 'app_user', 'external_id', 'u-1', 'name', 'Ada'))),
           'abandoned', 6, now() - interval '1 hour', now() - interval '1 hour'
    FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, ${count}) AS n) made`;
}

describe('what was sent', () => {
  it("shows each attempt's request as sent, its signature verifying against the body shown, until an erasure removes the body", async () => {
    const { receiver, endpointId, secret } = await receiverWithEndpoint();
    receiver.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    await grantScopes(url(), owner.token, appId, ['privacy:write']);
    await suggest('Sent as shown', 'erase-me');
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'the delivery', timeoutMs: 20_000 },
    );
    const path = `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/deliveries/${delivery.id}`;
    const detail = await call<{ request_body: string | null; attempt_log: Array<{ request: { url: string; headers: Record<string, string> } }> }>(url(), 'GET', path, { token: owner.token });
    expect(detail.body.attempt_log).toHaveLength(2);
    // Exactly what the receiver got: its body and each attempt's headers.
    expect(detail.body.request_body).toBe(receiver.received[0]!.body);
    detail.body.attempt_log.forEach(({ request }, n) => {
      expect(request.url).toBe(receiver.url());
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'FeedbackWebhooks/1.0',
        'X-Service-Event': 'suggestion.created',
        'X-Service-Delivery': delivery.id,
        'X-Service-Signature': receiver.received[n]!.headers['x-service-signature'],
      });
      expect(() => verify(detail.body.request_body!, request.headers['X-Service-Signature']!, secret)).not.toThrow();
    });
    const erased = await call(url(), 'DELETE', '/api/v1/privacy/users/erase-me', { key: secretKey });
    expect(erased.status).toBe(200);
    const after = await eventually(
      async () => {
        const answer = await call<{ request_body: string | null; attempt_log: Array<{ response_body_start: string | null; request: { headers: Record<string, string> } | null }> }>(url(), 'GET', path, { token: owner.token });
        return answer.body.request_body === null ? answer.body : undefined;
      },
      { what: 'the body gone after the erasure' },
    );
    expect(after.attempt_log.every((attempt) => attempt.response_body_start === null)).toBe(true);
    // The signature went too: a MAC of the erased body, against which guesses of it could be tested.
    expect(after.attempt_log.map((attempt) => attempt.request?.headers['X-Service-Signature'])).toEqual(after.attempt_log.map(() => undefined));
    expect(after.attempt_log.every((attempt) => attempt.request?.headers['X-Service-Event'] !== undefined)).toBe(true);
    expect(JSON.stringify(after)).not.toContain('erase-me');
  }, 60_000);
});

describe('Recover', () => {
  it('redelivers, after an outage longer than the retries, each abandoned delivery once, with its own id, and shows its progress until it ends', async () => {
    const { receiver, endpointId, secret } = await receiverWithEndpoint();
    // The outage: every attempt fails, so each delivery goes through its retries and is abandoned.
    receiver.answer = () => ({ status: 503 });
    const before = new Date(Date.now() - 1_000).toISOString();
    for (let n = 0; n < 5; n += 1) await suggest(`During the outage ${n}`);
    await eventually(
      () => system.worker.prisma.delivery.count({ where: { endpointId, status: 'abandoned' } }).then((count) => (count === 5 ? true : undefined)),
      { what: 'five deliveries abandoned', timeoutMs: 30_000 },
    );
    const abandoned = await system.worker.prisma.delivery.findMany({ where: { endpointId }, select: { id: true } });
    expect(receiver.received).toHaveLength(30);
    // Mended: one Recover sends each again.
    receiver.received.splice(0);
    receiver.answer = () => ({ status: 204 });
    const started = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since: before } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ state: 'running', total: 5, remaining: 5, statuses: ['abandoned', 'held'], events: null });
    const ended = await untilRecoveryEnds(endpointId, started.body.id);
    expect(ended).toMatchObject({ state: 'finished', total: 5, delivered: 5, failed: 0, skipped: 0, remaining: 0 });
    const ids = receiver.received.map((request) => request.headers['x-service-delivery']);
    expect(ids.sort()).toEqual(abandoned.map((delivery) => delivery.id).sort());
    for (const request of receiver.received) expect(() => verify(request.body, String(request.headers['x-service-signature']), secret)).not.toThrow();
    expect(await system.worker.prisma.delivery.count({ where: { endpointId, status: 'delivered' } })).toBe(5);
    // A second Recover finds nothing left to send.
    const again = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since: before } });
    expect(again.body).toMatchObject({ state: 'finished', total: 0 });
    const audit = await call<{ items: Array<{ action: string; endpoint_id: string; actor: string | null }> }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/audit`, { token: owner.token });
    expect(audit.body.items.filter((entry) => entry.endpoint_id === endpointId).map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['recovery_started', 'recovery_finished']),
    );
  }, 60_000);

  it('takes only the events and statuses asked for', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint(['suggestion.created', 'ticket.created']);
    receiver.answer = () => ({ status: 500 });
    const since = new Date(Date.now() - 1_000).toISOString();
    await suggest('A suggestion');
    await call(url(), 'POST', '/widget/v1/tickets', { key: publicKey, body: { subject: 'A ticket', body: 'x', user: { external_id: 'u-1' } } });
    await eventually(
      () => system.worker.prisma.delivery.count({ where: { endpointId, status: 'abandoned' } }).then((count) => (count === 2 ? true : undefined)),
      { what: 'both abandoned', timeoutMs: 30_000 },
    );
    receiver.received.splice(0);
    receiver.answer = () => ({ status: 200 });
    const started = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since, events: ['ticket.created'] } });
    expect(started.body.total).toBe(1);
    await untilRecoveryEnds(endpointId, started.body.id);
    expect(receiver.received.map((request) => request.headers['x-service-event'])).toEqual(['ticket.created']);
    const delivered = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since, statuses: ['delivered'] } });
    expect(delivered.body.total).toBe(1);
  }, 60_000);

  it('runs one at a time per endpoint, and a cancelled one queues nothing more', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.answer = () => ({ status: 200, until: held });
    await abandonedDeliveries(endpointId, 200);
    try {
      const since = new Date(Date.now() - 2 * 3_600_000).toISOString();
      const first = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since } });
      expect(first.body).toMatchObject({ state: 'running', total: 200 });
      const second = await call(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since } });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ error: 'recovery_in_progress' });
      await eventually(() => (receiver.received.length > 0 ? true : undefined), { what: 'the first redeliveries' });
      const cancelled = await call<Recovery>(url(), 'POST', `${recoveryPath(endpointId, first.body.id)}/cancel`, { token: owner.token });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.state).toBe('cancelled');
      expect((await call(url(), 'POST', `${recoveryPath(endpointId, first.body.id)}/cancel`, { token: owner.token })).body).toMatchObject({ error: 'recovery_ended' });
      release();
      // What was queued before the cancel goes; nothing after it.
      const queued = await system.worker.prisma.recoveryItem.count({ where: { recoveryId: first.body.id, state: { not: 'waiting' } } });
      await eventually(() => (receiver.received.length >= queued ? true : undefined), { what: 'the queued redeliveries' });
      expect(queued).toBeLessThan(200);
      const listed = await call<{ items: Recovery[] }>(url(), 'GET', recoveryPath(endpointId), { token: owner.token });
      expect(listed.body.items[0]).toMatchObject({ id: first.body.id, state: 'cancelled' });
    } finally {
      release();
    }
  }, 60_000);

  it('goes on where it was when the worker driving it stops, another worker taking it over, each delivery sent once', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    receiver.answer = () => ({ status: 200, delayMs: 20 });
    await abandonedDeliveries(endpointId, 300);
    const started = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since: new Date(Date.now() - 2 * 3_600_000).toISOString() } });
    await eventually(() => (receiver.received.length >= 40 ? true : undefined), { what: 'the recovery under way', timeoutMs: 20_000 });
    const silent = createLogger({ service: 'webhook-worker', transports: [new winston.transports.Console({ silent: true })] });
    let another: WorkerService | undefined;
    try {
      another = await startWorker(readWorkerConfig({ ...system.env, HEALTH_PORT: '0' }).config, silent);
      await system.worker.stop();
      const ended = await untilRecoveryEnds(endpointId, started.body.id, 60_000);
      expect(ended).toMatchObject({ state: 'finished', delivered: 300, remaining: 0 });
      const ids = receiver.received.map((request) => String(request.headers['x-service-delivery']));
      expect(new Set(ids).size).toBe(300);
      expect(ids).toHaveLength(300);
    } finally {
      await another?.stop();
    }
  }, 90_000);
});

describe('Recover of 10,000 deliveries', () => {
  let worker: WorkerService;

  beforeAll(async () => {
    // The system's own worker was stopped above: one of this file's own drives the rest.
    const silent = createLogger({ service: 'webhook-worker', transports: [new winston.transports.Console({ silent: true })] });
    worker = await startWorker(readWorkerConfig({ ...system.env, HEALTH_PORT: '0' }).config, silent);
    live = worker;
  }, 30_000);

  afterAll(async () => {
    await worker?.stop();
  });

  it('finishes, each delivery sent once with its own id', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    await abandonedDeliveries(endpointId, 10_000);
    const started = await call<Recovery>(url(), 'POST', recoveryPath(endpointId), { token: owner.token, body: { since: new Date(Date.now() - 2 * 3_600_000).toISOString() } });
    expect(started.body.total).toBe(10_000);
    const ended = await untilRecoveryEnds(endpointId, started.body.id, 240_000);
    expect(ended).toMatchObject({ state: 'finished', total: 10_000, delivered: 10_000, failed: 0, skipped: 0, remaining: 0 });
    const ids = receiver.received.map((request) => String(request.headers['x-service-delivery']));
    expect(ids).toHaveLength(10_000);
    expect(new Set(ids).size).toBe(10_000);
    // Through the endpoint's slots: never more at once than a worker gives one endpoint.
    expect(receiver.mostInFlight).toBeLessThanOrEqual(Number(system.env['PER_ENDPOINT_CONCURRENCY']));
  }, 300_000);
});
