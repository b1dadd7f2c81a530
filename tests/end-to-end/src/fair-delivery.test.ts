import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let receiver: HttpsReceiver;

beforeAll(async () => {
  system = await startSystem({ PER_HOST_CONCURRENCY: '2', WEBHOOK_THROTTLE_DELAYS_MS: '200' });
  receiver = await HttpsReceiver.start(testCertificates().trusted);
});

afterAll(async () => {
  await receiver.close();
  await system.stop();
});

describe('fair delivery across tenants', () => {
  it("keeps a host's requests in flight under its cap, however many endpoints point at it, and delivers the rest after", async () => {
    const team = await signUpTeam(system.api.url, 'pro');
    const { appId, publicKey } = await createApp(system.api.url, team.token);
    for (let n = 0; n < 6; n += 1) {
      const created = await call(system.api.url, 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
        token: team.token,
        body: { name: `Same host ${n}`, url: receiver.url(`/hooks/${n}`), events: ['suggestion.created'] },
      });
      expect(created.status).toBe(201);
    }
    let release!: () => void;
    const held = new Promise((resolve) => (release = () => resolve(undefined)));
    receiver.answer = () => ({ status: 200, until: held });
    const suggestion = await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'One event, six endpoints', user: { external_id: 'u1' } } });
    expect(suggestion.status).toBe(201);
    await eventually(() => (receiver.inFlight === 2 ? true : undefined), { what: 'two requests held at the receiver' });
    // The other four wait their turn rather than reach the host.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(2);
    release();
    await eventually(() => (receiver.received.length === 6 ? true : undefined), { what: 'every delivery', timeoutMs: 20_000 });
    expect(receiver.mostInFlight).toBe(2);
  });
});
