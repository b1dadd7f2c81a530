import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { topologyNames } from '@feedback/messaging';
import { ATTEMPT_HEADER, webhookQueueNames } from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { AMQP_URL, healthUrl, startSystem } from './system.js';
import { readWorkerConfig } from '../../../services/webhook-worker/src/service.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
let publicKey: string;
let secretKey: string;
const receivers: HttpsReceiver[] = [];
const url = () => system.api.url;

beforeAll(async () => {
  // The pause period in seconds rather than days; health written and checked often.
  system = await startSystem({ WEBHOOK_PAUSE_AFTER_FAILING_SECONDS: '2', WEBHOOK_PAUSE_CHECK_MS: '200', WEBHOOK_HEALTH_FLUSH_MS: '100' });
  owner = await signUpTeam(url(), 'pro');
  ({ appId, publicKey, secretKey } = await createApp(url(), owner.token, 'Pausing app'));
}, 60_000);

afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

afterAll(async () => {
  await system?.stop();
});

interface EndpointView {
  id: string;
  health: { last_success_at: string | null; failing_since: string | null; attempts_last_day: number; success_rate_last_day: number | null };
  pause: { paused_at: string; reason: string; paused_by: string | null } | null;
}

async function receiverWithEndpoint() {
  const receiver = await HttpsReceiver.start(testCertificates().trusted);
  receivers.push(receiver);
  const created = await call<{ endpoint: EndpointView }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: receiver.url(), events: ['suggestion.created'] },
  });
  expect(created.status).toBe(201);
  return { receiver, endpointId: created.body.endpoint.id };
}

const suggest = (title: string) => call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title, user: { external_id: 'u-1', name: 'Ada' } } });
const endpoint = async (endpointId: string) => (await call<EndpointView>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}`, { token: owner.token })).body;

describe('endpoint health', () => {
  it('shows the last success, since when the endpoint fails, and its success rate over the last day', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    receiver.answer = (_request, index) => ({ status: index === 0 ? 200 : 500 });
    expect((await endpoint(endpointId)).health).toEqual({ last_success_at: null, failing_since: null, attempts_last_day: 0, success_rate_last_day: null });
    await suggest('Succeeds');
    const succeeded = await eventually(async () => {
      const view = await endpoint(endpointId);
      return view.health.last_success_at ? view : undefined;
    }, { what: 'the success counted' });
    expect(succeeded.health).toMatchObject({ failing_since: null, attempts_last_day: 1, success_rate_last_day: 1 });
    await suggest('Fails');
    const failing = await eventually(async () => {
      const view = await endpoint(endpointId);
      return view.health.failing_since && view.health.attempts_last_day >= 2 ? view : undefined;
    }, { what: 'the failure counted' });
    expect(Date.parse(failing.health.failing_since!)).toBeGreaterThan(Date.parse(failing.health.last_success_at!));
    expect(failing.health.success_rate_last_day).toBeLessThan(1);
    // The endpoint list shows the same.
    const listed = await call<{ items: EndpointView[] }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks`, { token: owner.token });
    expect(listed.body.items.find((item) => item.id === endpointId)!.health.failing_since).toBe(failing.health.failing_since);
  }, 30_000);
});

describe('a failing endpoint', () => {
  it('is paused once every attempt has failed for the pause period; what it selects is held, not dropped; resumed, Recover sends what was held', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    receiver.answer = () => ({ status: 503 });
    const since = new Date(Date.now() - 1_000).toISOString();
    await suggest('Before the pause');
    const paused = await eventually(async () => {
      const view = await endpoint(endpointId);
      return view.pause ? view : undefined;
    }, { what: 'the endpoint paused', timeoutMs: 20_000 });
    expect(paused.pause).toMatchObject({ reason: 'failing', paused_by: null });
    const audit = await call<{ items: Array<{ action: string; endpoint_id: string; actor: string | null; detail: string }> }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/audit`, { token: owner.token });
    expect(audit.body.items.find((entry) => entry.endpoint_id === endpointId)).toMatchObject({ action: 'paused', actor: null, detail: expect.stringContaining('Every attempt has failed since') });
    // Paused, the endpoint gets nothing; its events are kept as held deliveries.
    const sentBefore = receiver.received.length;
    await suggest('While paused 1');
    await suggest('While paused 2');
    await eventually(
      () => system.worker.prisma.delivery.count({ where: { endpointId, status: 'held' } }).then((count) => (count === 2 ? true : undefined)),
      { what: 'two held deliveries' },
    );
    expect(receiver.received).toHaveLength(sentBefore);
    // A Recover waits for the resume.
    const early = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/recoveries`, { token: owner.token, body: { since } });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'endpoint_paused' });
    // The receiver is mended; an Owner resumes, and Recover sends what was held and what failed.
    receiver.answer = () => ({ status: 200 });
    const resumed = await call<EndpointView>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/resume`, { token: owner.token });
    expect(resumed.status).toBe(200);
    expect(resumed.body.pause).toBeNull();
    expect(resumed.body.health.failing_since).toBeNull();
    const recovered = await call<{ id: string; total: number }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/recoveries`, { token: owner.token, body: { since } });
    expect(recovered.body.total).toBe(3);
    await eventually(
      () => system.worker.prisma.delivery.count({ where: { endpointId, status: 'delivered' } }).then((count) => (count === 3 ? true : undefined)),
      { what: 'the held and abandoned deliveries delivered', timeoutMs: 20_000 },
    );
    const titles = receiver.received.slice(sentBefore).map((request) => (JSON.parse(request.body) as { data: { suggestion: { title: string } } }).data.suggestion.title);
    expect(titles.sort()).toEqual(['Before the pause', 'While paused 1', 'While paused 2']);
    const actions = (await call<{ items: Array<{ action: string; endpoint_id: string; actor: string | null }> }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/audit`, { token: owner.token })).body.items
      .filter((entry) => entry.endpoint_id === endpointId)
      .map((entry) => `${entry.action} ${entry.actor ?? 'service'}`);
    expect(actions).toEqual(expect.arrayContaining(['paused service', 'resumed Olive Owner', 'recovery_started Olive Owner']));
    // Counted for operators.
    const metrics = await (await fetch(`${healthUrl(system.worker)}/metrics`)).text();
    expect(metrics).toMatch(/^feedback_webhook_endpoints_paused\{[^}]*\} \d+$/m);
  }, 60_000);

  it('is not paused for one failure long ago followed by silence, only while its attempts still fail', async () => {
    const { endpointId } = await receiverWithEndpoint();
    // Failing for longer than the pause period, but with no attempt in the last day.
    await system.worker.prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { failingSince: new Date(Date.now() - 60_000) } });
    // Several pause checks go by (one every 200 ms here).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await endpoint(endpointId)).pause).toBeNull();
    await system.worker.prisma.endpointAttemptCount.create({ data: { endpointId, hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000), attempts: 1, succeeded: 0 } });
    await eventually(async () => ((await endpoint(endpointId)).pause?.reason === 'failing' ? true : undefined), { what: 'the pause once an attempt failed again' });
  }, 30_000);

  it('is paused and resumed by hand, a retry due meanwhile held rather than sent', async () => {
    const { receiver, endpointId } = await receiverWithEndpoint();
    const pausedByHand = await call<EndpointView>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/pause`, { token: owner.token });
    expect(pausedByHand.body.pause).toMatchObject({ reason: 'member', paused_by: 'Olive Owner' });
    // Pressed again, it stays as it was.
    const again = await call<EndpointView>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/pause`, { token: owner.token });
    expect(again.body.pause!.paused_at).toBe(pausedByHand.body.pause!.paused_at);
    await suggest('Held by hand');
    await eventually(() => system.worker.prisma.delivery.count({ where: { endpointId, status: 'held' } }).then((count) => (count === 1 ? true : undefined)), { what: 'the held delivery' });
    // A Send test still goes, so a team can check its receiver before resuming.
    const ping = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/test`, { token: owner.token });
    expect(ping.status).toBe(202);
    await eventually(() => (receiver.received.length === 1 ? true : undefined), { what: 'the ping' });
    expect(receiver.received[0]!.headers['x-service-event']).toBe('webhook.ping');
    // A retry that comes back while the endpoint is paused is held too.
    const retrying = randomUUID();
    await system.worker.prisma.delivery.create({
      data: { id: retrying, endpointId, eventId: randomUUID(), eventType: 'suggestion.created', appId, payload: { id: retrying }, status: 'retrying', attempts: 1 },
    });
    const { retryDelaysMs, throttleDelaysMs } = readWorkerConfig(system.env).config;
    const connection = await amqplib.connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      const deliver = webhookQueueNames(topologyNames(system.namespace), retryDelaysMs, throttleDelaysMs).deliver;
      channel.sendToQueue(deliver, Buffer.from(JSON.stringify({ delivery_id: retrying })), { headers: { [ATTEMPT_HEADER]: 2 }, persistent: true });
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    await eventually(() => system.worker.prisma.delivery.findFirst({ where: { id: retrying, status: 'held' } }).then((row) => row ?? undefined), { what: 'the retry held' });
    expect(receiver.received).toHaveLength(1);
    expect((await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/resume`, { token: owner.token })).status).toBe(200);
    await suggest('After the resume');
    await eventually(() => (receiver.received.length === 2 ? true : undefined), { what: 'the next event delivered' });
    expect(await system.worker.prisma.delivery.count({ where: { endpointId, status: 'held' } })).toBe(2);
  }, 30_000);

  it("withholds the held deliveries of a user who is erased: a Recover will not send them, so they do not stay held", async () => {
    const { endpointId } = await receiverWithEndpoint();
    await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/pause`, { token: owner.token });
    const user = `erased-${randomUUID()}`;
    await call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'Held, then erased', user: { external_id: user } } });
    await eventually(() => system.worker.prisma.delivery.count({ where: { endpointId, status: 'held' } }).then((count) => (count === 1 ? true : undefined)), { what: 'the held delivery' });
    await grantScopes(url(), owner.token, appId, ['privacy:write']);
    expect((await call(url(), 'DELETE', `/api/v1/privacy/users/${user}`, { key: secretKey })).status).toBe(200);
    await eventually(() => system.worker.prisma.delivery.count({ where: { endpointId, status: 'withheld' } }).then((count) => (count === 1 ? true : undefined)), { what: 'the held delivery withheld' });
    expect(await system.worker.prisma.delivery.count({ where: { endpointId, status: 'held' } })).toBe(0);
  }, 30_000);

  it('is paused, resumed and recovered only by an Owner or Admin', async () => {
    const { endpointId } = await receiverWithEndpoint();
    const member = { name: 'Mo Member', email: `member-${Date.now()}@example.com`, password: 'a long enough password' };
    expect((await call(url(), 'POST', '/dashboard/v1/members', { token: owner.token, body: { ...member, role: 'member' } })).status).toBe(201);
    const signedIn = await call<{ token: string }>(url(), 'POST', '/dashboard/v1/sign-in', { body: { email: member.email, password: member.password } });
    for (const [method, path] of [['POST', 'pause'], ['POST', 'resume'], ['POST', 'recoveries'], ['GET', 'recoveries']] as const) {
      const answer = await call(url(), method, `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/${path}`, { token: signedIn.body.token, body: method === 'POST' ? { since: new Date().toISOString() } : undefined });
      expect({ path, status: answer.status, error: answer.body['error'] }).toEqual({ path, status: 403, error: 'insufficient_role' });
    }
  }, 30_000);
});
