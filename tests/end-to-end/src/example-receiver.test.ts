import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, freePort, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { requireCurrentBuild } from './current-build.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

/** The example receiver as a user runs it: its built entry point, as its own process. */
const entry = fileURLToPath(new URL('../../../examples/feedback-receiver/dist/main.js', import.meta.url));

interface RunningReceiver {
  process: ChildProcess;
  /** Every JSON line it printed, in order. */
  lines: Array<Record<string, unknown>>;
}

let system: RunningSystem;
let owner: Owner;
let app: { appId: number; secretKey: string; publicKey: string };
let port: number;
let secret: string;
let endpointId: string;
let receiver: RunningReceiver;
const notifications: Array<Record<string, unknown>> = [];

async function startReceiver(env: Record<string, string> = {}): Promise<RunningReceiver> {
  const certificates = testCertificates();
  requireCurrentBuild();
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: String(port),
      FEEDBACK_WEBHOOK_SECRET: secret,
      FEEDBACK_API_URL: system.api.url,
      FEEDBACK_API_KEY: app.secretKey,
      DATABASE_URL: system.env['DATABASE_URL']!,
      TLS_CERT_FILE: certificates.trustedFiles.certFile,
      TLS_KEY_FILE: certificates.trustedFiles.keyFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const running: RunningReceiver = { process: child, lines: [] };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    running.lines.push(parsed);
    if ('notify' in parsed) notifications.push(parsed);
  });
  await eventually(() => running.lines.find((line) => 'caught_up_since' in line), { what: 'the receiver to start and catch up', timeoutMs: 20_000 });
  return running;
}

/** POSTs over HTTPS trusting the tests' own CA, which signed the receiver's certificate. */
async function postTrustingTestCa(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const outgoing = request(url, { method: 'POST', headers, ca: readFileSync(testCertificates().caFile) });
  outgoing.end(body);
  const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return { status: response.statusCode ?? 0, body: text };
}

async function stopReceiver(running: RunningReceiver): Promise<void> {
  if (running.process.exitCode !== null) return;
  running.process.kill('SIGTERM');
  await once(running.process, 'exit');
}

const dashboard = (method: string, path: string, body?: unknown) =>
  call<Record<string, unknown>>(system.api.url, method, `/dashboard/v1/apps/${app.appId}${path}`, { token: owner.token, body });
const widget = (path: string, body: unknown) => call<Record<string, unknown>>(system.api.url, 'POST', `/widget/v1${path}`, { key: app.publicKey, body });
const notificationsFor = (externalId: string) => notifications.filter((line) => line['notify'] === externalId).map((line) => line['message']);
const ada = { external_id: 'ada', name: 'Ada' };
const bob = { external_id: 'bob', name: 'Bob' };

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(system.api.url, 'pro');
  app = await createApp(system.api.url, owner.token);
  port = await freePort();
  const created = await dashboard('POST', '/webhooks', {
    name: 'Example receiver',
    url: `https://localhost:${port}/webhooks`,
    events: ['suggestion.created', 'suggestion.status_changed', 'suggestion.commented', 'ticket.created', 'ticket.replied', 'ticket.status_changed'],
  });
  secret = created.body['signing_secret'] as string;
  endpointId = (created.body['endpoint'] as { id: string }).id;
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  if (receiver) await stopReceiver(receiver);
  await system?.stop();
});

describe('the example receiver, run against the system', () => {
  let suggestionId: number;

  it('tells the author when a member changes their suggestion, and not when they comment on it themself', async () => {
    suggestionId = (await widget('/suggestions', { title: 'Dark mode', user: ada })).body['id'] as number;
    await widget(`/suggestions/${suggestionId}/comments`, { body: 'Please!', user: ada });
    expect((await dashboard('PATCH', `/suggestions/${suggestionId}`, { status: 'planned' })).status).toBe(200);
    await eventually(() => (notificationsFor('ada').length > 0 ? true : undefined), { what: "Ada's notification" });
    await eventually(() => (receiver.lines.filter((line) => 'handled' in line).length >= 3 ? true : undefined), { what: 'all three events handled' });
    expect(notificationsFor('ada')).toEqual(['Your suggestion "Dark mode" is now planned.']);
  });

  it('tells a ticket author about a team reply, and not about their own', async () => {
    const ticketId = (await widget('/tickets', { subject: 'Crash', body: 'On launch', user: bob })).body['id'] as number;
    await dashboard('POST', `/tickets/${ticketId}/messages`, { body: 'Fixed in 2.1', visibility: 'public' });
    await eventually(() => (notificationsFor('bob').length > 0 ? true : undefined), { what: "Bob's notification" });
    await widget(`/tickets/${ticketId}/replies`, { body: 'Thanks, it works', user: bob });
    await eventually(() => (receiver.lines.filter((line) => line['handled'] === 'ticket.replied').length >= 2 ? true : undefined), { what: 'both replies handled' });
    expect(notificationsFor('bob')).toEqual(['New reply on your ticket T-1: "Fixed in 2.1"']);
  });

  it('skips a delivery redelivered by hand: answered 200, nobody told twice', async () => {
    const list = await call<{ items: Array<{ id: string; event: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries`, { token: owner.token });
    const statusChange = list.body.items.find((item) => item.event === 'suggestion.status_changed')!;
    const before = notifications.length;
    expect((await dashboard('POST', `/webhooks/${endpointId}/deliveries/${statusChange.id}/redeliver`)).status).toBe(202);
    const detail = await eventually(async () => {
      const answer = await call<{ delivery: { status: string }; attempt_log: Array<{ response_code: number; response_body_start: string }> }>(
        system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries/${statusChange.id}`, { token: owner.token },
      );
      return answer.body.delivery.status === 'delivered' && answer.body.attempt_log.length === 2 ? answer.body : undefined;
    }, { what: 'the redelivery to be answered' });
    expect(detail.attempt_log[1]).toMatchObject({ response_code: 200 });
    expect(JSON.parse(detail.attempt_log[1]!.response_body_start)).toEqual({ received: true, duplicate: true });
    expect(notifications.length).toBe(before);
  });

  it('refuses a request that is not signed with the endpoint secret', async () => {
    const answer = await postTrustingTestCa(`https://localhost:${port}/webhooks`, '{"id":"forged"}', {
      'content-type': 'application/json',
      'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'signature_mismatch' });
  });

  it('catches up at start-up with what changed while it was down, telling the author once', async () => {
    await stopReceiver(receiver);
    expect((await dashboard('PATCH', `/suggestions/${suggestionId}`, { status: 'in_progress' })).status).toBe(200);
    // Every attempt fails while the receiver is down; the test schedule abandons it within a second.
    await eventually(async () => {
      const list = await call<{ items: Array<{ event: string; status: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries`, { token: owner.token });
      return list.body.items.some((item) => item.event === 'suggestion.status_changed' && item.status === 'abandoned') ? true : undefined;
    }, { what: 'the delivery to be abandoned' });

    receiver = await startReceiver();
    const caughtUp = receiver.lines.find((line) => 'caught_up_since' in line)!;
    expect(caughtUp['suggestions']).toBeGreaterThanOrEqual(1);
    expect(notificationsFor('ada')).toEqual(['Your suggestion "Dark mode" is now planned.', 'Your suggestion "Dark mode" is now in progress.']);
  }, 60_000);

  it('finds at its next sweep a change whose delivery was abandoned while it stayed up and handled later ones', async () => {
    await stopReceiver(receiver);
    receiver = await startReceiver({ SWEEP_INTERVAL_SECONDS: '2' });
    const abandonedChanges = async () => {
      const list = await call<{ items: Array<{ event: string; status: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries?limit=100`, { token: owner.token });
      return list.body.items.filter((item) => item.event === 'suggestion.status_changed' && item.status === 'abandoned').length;
    };
    const abandonedBefore = await abandonedChanges();
    // A partial outage: for a while deliveries fail (the endpoint points where nothing answers),
    // long enough for the status change's delivery to be abandoned.
    const receiverUrl = `https://localhost:${port}/webhooks`;
    expect((await dashboard('PATCH', `/webhooks/${endpointId}`, { url: `https://localhost:${await freePort()}/webhooks` })).status).toBe(200);
    expect((await dashboard('PATCH', `/suggestions/${suggestionId}`, { status: 'completed' })).status).toBe(200);
    await eventually(async () => ((await abandonedChanges()) > abandonedBefore ? true : undefined), { what: 'the delivery to be abandoned' });
    expect((await dashboard('PATCH', `/webhooks/${endpointId}`, { url: receiverUrl })).status).toBe(200);
    // A later delivery succeeds: the receiver is up and handling webhooks again.
    const handledPings = () => receiver.lines.filter((line) => line['handled'] === 'webhook.ping').length;
    const pingsBefore = handledPings();
    expect((await dashboard('POST', `/webhooks/${endpointId}/test`)).status).toBe(202);
    await eventually(() => (handledPings() > pingsBefore ? true : undefined), { what: 'the test delivery handled' });

    await eventually(() => (notificationsFor('ada').includes('Your suggestion "Dark mode" is now completed.') ? true : undefined), {
      what: 'the abandoned change found by a later sweep',
    });
    expect(notificationsFor('ada').filter((message) => message === 'Your suggestion "Dark mode" is now completed.')).toHaveLength(1);
  }, 60_000);
});
