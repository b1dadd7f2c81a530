import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, freePort, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { spawnWorker } from './worker-process.js';

let system: RunningSystem;
const workers: ChildProcess[] = [];
let target: HttpsReceiver;

beforeAll(async () => {
  system = await startSystem();
  // Deliveries here are made only by worker processes this test controls.
  await system.worker.stop();
  target = await HttpsReceiver.start(testCertificates().trusted);
}, 60_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await target?.close();
  await system?.stop();
});

describe('a worker stopped while it holds more attempts than it has requests in flight', () => {
  it('finishes the requests it has sent and hands the rest to another worker, each delivered once', async () => {
    // Two requests at a time: of six events' first attempts, four wait in the worker.
    // A time limit the held requests stay well within, so that none fails and is retried.
    const healthPort = await freePort();
    const first = spawnWorker({ ...system.env, DELIVERY_PREFETCH: '2', WEBHOOK_TIMEOUT_MS: '30000' }, { healthPort });
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
