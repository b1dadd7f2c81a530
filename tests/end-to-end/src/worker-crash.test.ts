import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
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
