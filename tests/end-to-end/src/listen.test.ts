import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import { verify } from '@feedback/webhook-signature';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { connectRpcCaller, startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { DashboardSession, listen, trigger } from '../../../packages/cli/src/index.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
const url = () => system.api.url;

/** What the developer's local receiver saw: each request, and whether its signature verified. */
interface Seen {
  event: string;
  delivery: string;
  verified: boolean;
}

/**
 * A plain HTTP receiver on this machine, verifying each request with the session's secret as
 * production code does. `answer` chooses its status, and may hold the answer back.
 */
async function localReceiver(secret: () => string) {
  const seen: Seen[] = [];
  let answer: (index: number) => { status: number; until?: Promise<unknown> } = () => ({ status: 200 });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = true;
      try {
        verify(body, String(request.headers['x-service-signature']), secret());
      } catch {
        verified = false;
      }
      const index = seen.push({ event: String(request.headers['x-service-event']), delivery: String(request.headers['x-service-delivery']), verified }) - 1;
      const { status, until } = answer(index);
      void Promise.resolve(until).then(() => {
        response.writeHead(verified ? status : 400, { 'content-type': 'text/plain' });
        response.end(verified ? `local ${status}` : 'bad signature');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    seen,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`),
    answerWith: (chosen: typeof answer) => (answer = chosen),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  // A short time limit, so that the attempt under way when the tool disconnects fails soon.
  system = await startSystem({ WEBHOOK_TIMEOUT_MS: '3000' });
  owner = await signUpTeam(url(), 'pro');
  ({ appId } = await createApp(url(), owner.token, 'Listening app'));
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('feedback listen', () => {
  it('brings the app\'s events, signed with the session\'s secret, to a local receiver, with the same retries, shows its answers in the history, and ends when the tool disconnects', async () => {
    let secret = '';
    const local = await localReceiver(() => secret);
    const lines: string[] = [];
    const session = await DashboardSession.start({ apiUrl: url(), email: owner.email, password: owner.password });
    const listener = listen({ apiUrl: url(), appId, forwardTo: local.url, events: ['suggestion.created', 'ticket.replied'], session, print: (line) => lines.push(line) });
    try {
      const ready = await listener.ready;
      secret = ready.signingSecret;
      expect(secret).toMatch(/^whsec_/);
      expect(ready.events).toEqual(['suggestion.created', 'ticket.replied']);
      const target = { apiUrl: url(), appId, token: session.token };

      // One event: delivered, verified, its answer in the history.
      await trigger(target, 'suggestion.created');
      await eventually(() => (local.seen.length === 1 ? true : undefined), { what: 'the first event' });
      expect(local.seen[0]).toMatchObject({ event: 'suggestion.created', verified: true });
      const history = `/dashboard/v1/apps/${appId}/webhooks/${ready.endpointId}/deliveries`;
      const first = await eventually(async () => {
        const page = await call<{ items: Array<{ id: string; status: string; last_response_code: number | null }> }>(url(), 'GET', history, { token: owner.token });
        return page.body.items[0]?.status === 'delivered' ? page.body.items[0] : undefined;
      }, { what: 'the delivery recorded' });
      expect(first).toMatchObject({ id: local.seen[0]!.delivery, last_response_code: 200 });
      const detail = await call<{ attempt_log: Array<{ response_body_start: string }> }>(url(), 'GET', `${history}/${first.id}`, { token: owner.token });
      expect(detail.body.attempt_log[0]!.response_body_start).toBe('local 200');
      await eventually(() => (lines.some((line) => line.includes(`suggestion.created  ${first.id}  -> 200 in`)) ? true : undefined), { what: 'the line printed' });

      // A failed local answer is retried on the usual schedule, with the same id.
      local.answerWith((index) => ({ status: index === 1 ? 500 : 200 }));
      await trigger(target, 'ticket.replied');
      await eventually(() => (local.seen.length === 3 ? true : undefined), { what: 'the reply and its retry' });
      expect(local.seen.slice(1).map((seen) => [seen.event, seen.verified])).toEqual([['ticket.replied', true], ['ticket.replied', true]]);
      expect(local.seen[2]!.delivery).toBe(local.seen[1]!.delivery);

      // Disconnected while a request is at the local receiver: that attempt fails, and nothing more is sent.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      local.answerWith(() => ({ status: 200, until: held }));
      await trigger(target, 'suggestion.created');
      await eventually(() => (local.seen.length === 4 ? true : undefined), { what: 'the request in the middle' });
      listener.close();
      expect((await listener.closed).code).toBe(1000);
      release();
      const cut = local.seen[3]!.delivery;
      const ended = await eventually(
        () => system.worker.prisma.delivery.findFirst({ where: { id: cut, status: 'cancelled' }, include: { attemptLog: true } }).then((row) => row ?? undefined),
        { what: 'the delivery cut in the middle to stop', timeoutMs: 20_000 },
      );
      expect(ended.attemptLog).toHaveLength(1);
      expect(ended.attemptLog[0]!.responseCode).toBeNull();
      await eventually(() => system.worker.prisma.webhookEndpoint.findFirst({ where: { id: ready.endpointId, endedAt: { not: null } } }).then((row) => row ?? undefined), { what: 'the session ended' });
      // An event after the end: the worker takes it, and makes the session no delivery.
      const taken = await system.worker.prisma.receivedEvent.count();
      await trigger(target, 'suggestion.created');
      await eventually(() => system.worker.prisma.receivedEvent.count().then((count) => (count === taken + 1 ? true : undefined)), { what: 'the last event taken' });
      expect(await system.worker.prisma.delivery.count({ where: { endpointId: ready.endpointId } })).toBe(3);
      expect(local.seen).toHaveLength(4);
    } finally {
      listener.close();
      session.stop();
      await local.close();
    }
  }, 60_000);

  it('is refused to a Member, and a plain GET of its address is told to upgrade', async () => {
    const member = { name: 'Mo Member', email: `member-${Date.now()}@example.com`, password: 'a long enough password' };
    expect((await call(url(), 'POST', '/dashboard/v1/members', { token: owner.token, body: { ...member, role: 'member' } })).status).toBe(201);
    const session = await DashboardSession.start({ apiUrl: url(), email: member.email, password: member.password });
    try {
      const listener = listen({ apiUrl: url(), appId, forwardTo: new URL('http://127.0.0.1:9/'), events: [], session, print: () => undefined });
      await expect(listener.ready).rejects.toThrow(/403 insufficient_role/);
    } finally {
      session.stop();
    }
    const plain = await call(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/listen`, { token: owner.token });
    expect(plain.status).toBe(426);
    expect(plain.body).toMatchObject({ error: 'upgrade_required' });
  }, 30_000);
});

/** A WebSocket upgrade of the listen address with `token`, from `address`: the status it is answered. */
function upgradeStatus(token: string, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${url()}/dashboard/v1/apps/${appId}/webhooks/listen`);
    const upgrade = request(target, {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        Authorization: `Bearer ${token}`,
        'X-Forwarded-For': address,
      },
    });
    upgrade.on('response', (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    upgrade.on('upgrade', (_answer, socket) => {
      socket.destroy();
      resolve(101);
    });
    upgrade.on('error', reject);
    upgrade.end();
  });
}

describe('the listen address', () => {
  it("refuses a token it cannot verify itself, counted against the address's failed authentications like any dashboard request", async () => {
    const forged = `${owner.token.split('.').slice(0, 2).join('.')}.${'A'.repeat(86)}`;
    const answers: number[] = [];
    for (let attempt = 0; attempt < 31; attempt += 1) answers.push(await upgradeStatus(forged, '198.51.100.7'));
    expect(answers.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(answers[30]).toBe(429);
    // Another address is not refused.
    expect(await upgradeStatus(forged, '198.51.100.8')).toBe(401);
  });
});

describe('listen sessions at the worker', () => {
  /** What the api sends the worker to open a session, with a grant the authority really signed. */
  async function openRequest(queue: string) {
    const rpc = await connectRpcCaller(system, { name: 'as-the-api', timeoutMs: 5000 });
    const granted = await rpc.call('authority.authorizeWebhookManagement', { app_id: appId, session: owner.token });
    const owned = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
    const open = () => rpc.call('webhook-worker.openListenSession', { owner: owned, queue, events: ['suggestion.created'], member_name: 'Olive' });
    return { rpc, open };
  }
  const sessionQueue = () => `${system.namespace}api.listen.${randomUUID()}`;

  it("refuses a queue that is not a listen session's, so that no caller can aim signed events at the worker's own queues", async () => {
    const { rpc, open } = await openRequest(`${system.namespace}webhooks.deliver`);
    try {
      await expect(open()).rejects.toMatchObject({ code: 'contract_violation' });
    } finally {
      await rpc.close();
    }
  });

  it('keeps a team to five open sessions, since each event fans out to every one', async () => {
    const opened: string[] = [];
    const rpc = await connectRpcCaller(system, { name: 'as-the-api', timeoutMs: 5000 });
    try {
      const granted = await rpc.call('authority.authorizeWebhookManagement', { app_id: appId, session: owner.token });
      const owned = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
      const open = () => rpc.call('webhook-worker.openListenSession', { owner: owned, queue: sessionQueue(), events: ['suggestion.created'], member_name: 'Olive' });
      for (let session = 0; session < 5; session += 1) opened.push((await open()).endpoint_id);
      await expect(open()).rejects.toMatchObject({ code: 'plan_limit_reached' });
      await rpc.call('webhook-worker.closeListenSession', { owner: owned, endpoint_id: opened.pop()! });
      opened.push((await open()).endpoint_id);
      for (const endpoint_id of opened) await rpc.call('webhook-worker.closeListenSession', { owner: owned, endpoint_id });
    } finally {
      await rpc.close();
    }
  });
});
