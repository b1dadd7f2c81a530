import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, freePort, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { spawnWorker } from './worker-process.js';

let system: RunningSystem;
const workers: ChildProcess[] = [];
let target: HttpsReceiver;

// Worker processes of their own, killed or stopped by the tests, on one system.
beforeAll(async () => {
  system = await startSystem();
  // Deliveries here are made only by worker processes these tests control.
  await system.worker.stop();
}, 60_000);

beforeEach(async () => {
  target = await HttpsReceiver.start(testCertificates().trusted);
});

// Each test starts with no worker running and a receiver of its own.
afterEach(async () => {
  await Promise.all(
    workers.splice(0).map((worker) => {
      if (worker.exitCode !== null || worker.signalCode !== null) return undefined;
      const exited = once(worker, 'exit');
      worker.kill('SIGKILL');
      return exited;
    }),
  );
  await target?.close();
});

afterAll(async () => {
  await system?.stop();
});

describe('a worker killed in the middle of a delivery', () => {
  it('leaves the message to another worker, which delivers it with the same id', async () => {
    const first = spawnWorker(system.env);
    workers.push(first);
    const owner = await signUpTeam(system.api.url, 'pro');
    const app = await createApp(system.api.url, owner.token);
    // The worker process answers endpoint management once it is up.
    await eventually(async () => {
      const created = await call(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
        token: owner.token,
        body: { name: 'Receiver', url: target.url(), events: ['suggestion.created'] },
      });
      return created.status === 201 ? true : undefined;
    }, { what: 'the worker process to create the endpoint', timeoutMs: 30_000 });
    // The first request hangs long enough for its worker to be killed while it waits.
    target.answer = (_request, index) => (index === 0 ? { status: 200, delayMs: 8_000 } : { status: 200 });

    await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: app.publicKey, body: { title: 'Crash test', user: { external_id: 'u-1' } } });
    await eventually(() => (target.received.length === 1 ? true : undefined), { what: 'the first attempt to reach the receiver', timeoutMs: 20_000 });
    first.kill('SIGKILL');

    const second = spawnWorker(system.env);
    workers.push(second);
    await eventually(() => (target.received.length >= 2 ? true : undefined), { what: 'another worker to deliver it', timeoutMs: 30_000 });
    expect(target.received[1]!.headers['x-service-delivery']).toBe(target.received[0]!.headers['x-service-delivery']);
    const deliveries = await eventually(async () => {
      const answer = await call<{ items: Array<{ id: string; status: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks`, { token: owner.token });
      const endpointId = (answer.body.items[0] as unknown as { id: string }).id;
      const listed = await call<{ items: Array<{ id: string; status: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries`, { token: owner.token });
      return listed.body.items[0]?.status === 'delivered' ? listed.body.items : undefined;
    }, { what: 'the delivery to be recorded as delivered', timeoutMs: 20_000 });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.id).toBe(target.received[0]!.headers['x-service-delivery']);
  }, 90_000);
});

describe('a worker stopped while it holds more attempts than it has requests in flight', () => {
  it('finishes the requests it has sent and hands the rest to another worker, each delivered once', async () => {
    // Two requests at a time: of six events' first attempts, four wait in the worker.
    // A time limit the held requests stay well within, so that none fails and is retried.
    const healthPort = await freePort();
    // One team alone may take both (its share is half the worker by default).
    const first = spawnWorker({ ...system.env, DELIVERY_PREFETCH: '2', PER_TEAM_CONCURRENCY: '2', WEBHOOK_TIMEOUT_MS: '30000' }, { healthPort });
    workers.push(first);
    const ready = async () => (await fetch(`http://127.0.0.1:${healthPort}/health/ready`).catch(() => undefined))?.status;
    await eventually(async () => ((await ready()) === 200 ? true : undefined), { what: 'the worker process to be ready', timeoutMs: 30_000 });
    const owner = await signUpTeam(system.api.url, 'pro');
    const app = await createApp(system.api.url, owner.token);
    const created = await call<{ endpoint: { id: string } }>(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
      token: owner.token,
      body: { name: 'Receiver', url: target.url(), events: ['suggestion.created'] },
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.endpoint.id;
    const deliveries = async () => {
      const listed = await call<{ items: Array<{ id: string; status: string }> }>(system.api.url, 'GET', `/dashboard/v1/apps/${app.appId}/webhooks/${endpointId}/deliveries`, { token: owner.token });
      return listed.body.items;
    };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    target.answer = () => ({ status: 200, until: held });

    for (let n = 0; n < 6; n += 1) {
      await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: app.publicKey, body: { title: `Shutdown ${n}`, user: { external_id: 'u-1' } } });
    }
    await eventually(async () => (target.received.length === 2 && (await deliveries()).length === 6 ? true : undefined), {
      what: 'two requests sent and six deliveries made',
      timeoutMs: 20_000,
    });
    first.kill('SIGTERM');
    // Not ready once its shutdown has begun: from then on it sends nothing new.
    await eventually(async () => ((await ready()) === 503 ? true : undefined), { what: 'the worker to begin its shutdown' });
    release();
    const [code] = (await once(first, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(target.received.map((request) => request.headers['x-service-delivery'])).toHaveLength(2);

    workers.push(spawnWorker(system.env));
    const settled = await eventually(async () => {
      const items = await deliveries();
      return items.every((item) => item.status === 'delivered') ? items : undefined;
    }, { what: 'another worker to deliver the other four', timeoutMs: 30_000 });
    const sentIds = target.received.map((request) => request.headers['x-service-delivery']);
    expect(sentIds).toHaveLength(6);
    expect(new Set(sentIds)).toEqual(new Set(settled.map((item) => item.id)));
  }, 90_000);
});
