import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { healthUrl, startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let secretKey: string;

beforeAll(async () => {
  system = await startSystem();
  const owner = await signUpTeam(system.api.url, 'starter');
  const created = await createApp(system.api.url, owner.token, 'Outage app');
  await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${created.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  secretKey = created.secretKey;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

function createSuggestion(title: string) {
  return fetch(`${system.api.url}/api/v1/suggestions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
    body: JSON.stringify({ title, author: { external_id: 'u-1', name: null } }),
  });
}

const readiness = async (url: string) => (await fetch(`${url}/health/ready`)).status;

describe('a broker outage', () => {
  it('does not kill any service: they report not ready, reconnect, and go on', async () => {
    const urls = [system.api.url, healthUrl(system.authority), healthUrl(system.worker)];
    await eventually(async () => ((await createSuggestion('before')).status === 201 ? true : undefined), { what: 'first request' });

    system.brokerProxy.interrupt();
    for (const url of urls) {
      await eventually(async () => ((await readiness(url)) === 503 ? true : undefined), { what: `${url} not ready` });
    }
    // Authentication needs the authority: during the outage the answer is a clear 503, never a hang.
    const during = await createSuggestion('during');
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ error: 'service_unavailable' });

    system.brokerProxy.restore();
    for (const url of urls) {
      await eventually(async () => ((await readiness(url)) === 200 ? true : undefined), { what: `${url} ready again`, timeoutMs: 20_000 });
    }
    const after = await eventually(async () => {
      const response = await createSuggestion('after');
      return response.status === 201 ? response : undefined;
    }, { what: 'a request after the outage', timeoutMs: 20_000 });
    expect(after.status).toBe(201);
    const titles = await eventually(async () => {
      const received = await system.worker.prisma.receivedEvent.count();
      return received >= 2 ? received : undefined;
    }, { what: 'events before and after the outage to reach the worker', timeoutMs: 20_000 });
    expect(titles).toBe(2);
  }, 90_000);
});
