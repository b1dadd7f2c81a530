import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { eventually } from '@feedback/test-support';
import type { ApiService } from '../../../services/api/src/service.js';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let second: ApiService;
let owner: Owner;

beforeAll(async () => {
  system = await startSystem();
  second = await system.startAnotherApi();
  owner = await signUpTeam(system.api.url, 'pro');
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

const createSuggestion = (baseUrl: string, key: string) =>
  call(baseUrl, 'POST', '/api/v1/suggestions', { key, body: { title: 'Sync', author: { external_id: 'u-9', name: null } } });

async function appWarmOnBothInstances() {
  const app = await createApp(system.api.url, owner.token);
  await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  // Both instances now hold the key in their caches.
  expect((await createSuggestion(system.api.url, app.secretKey)).status).toBe(201);
  expect((await createSuggestion(second.url, app.secretKey)).status).toBe(201);
  return app;
}

describe('with two api instances', () => {
  it('a key revoked through one is refused by the other as soon as the dashboard call returns', async () => {
    const app = await appWarmOnBothInstances();
    const revoked = await call(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/api-key/revoke`, { token: owner.token });
    expect(revoked.status).toBe(200);
    const onSecond = await createSuggestion(second.url, app.secretKey);
    expect(onSecond.status).toBe(401);
    expect(onSecond.body).toMatchObject({ error: 'revoked_api_key' });
  });

  it('a key rotated through one is refused by the other as soon as the dashboard call returns', async () => {
    const app = await appWarmOnBothInstances();
    const rotated = await call<{ secret_key: string }>(second.url, 'POST', `/dashboard/v1/apps/${app.appId}/api-key/rotate`, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect((await createSuggestion(system.api.url, app.secretKey)).status).toBe(401);
    expect((await createSuggestion(system.api.url, rotated.body.secret_key)).status).toBe(201);
  });

  it('a removed scope is refused by the other at once', async () => {
    const app = await appWarmOnBothInstances();
    await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: false } });
    expect((await createSuggestion(second.url, app.secretKey)).status).toBe(403);
  });

  it('a revocation that an instance holding a cache lease does not confirm is reported, not silently assumed', async () => {
    const app = await appWarmOnBothInstances();
    // An instance cut off from the broker: its lease is still running, so it may serve from its cache.
    const silent = await system.authority.prisma.apiInstance.create({
      data: { id: randomUUID(), leaseUntil: new Date(Date.now() + 60_000) },
    });
    try {
      const revoked = await call(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/api-key/revoke`, { token: owner.token });
      expect(revoked.status).toBe(503);
      expect(revoked.body).toMatchObject({ error: 'propagation_unconfirmed' });
      // The revocation itself is saved, and the instances that did confirm refuse the key.
      expect((await createSuggestion(second.url, app.secretKey)).status).toBe(401);
    } finally {
      await system.authority.prisma.apiInstance.delete({ where: { id: silent.id } });
    }
    // Once that lease is gone, retrying the action confirms it.
    const retried = await call(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/api-key/revoke`, { token: owner.token });
    expect(retried.status).toBe(200);
  }, 30_000);

  it('retrying a scope removal that was not confirmed confirms it again, though the scopes no longer change', async () => {
    const app = await appWarmOnBothInstances();
    const removeFullAccess = () =>
      call(system.api.url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: false } });
    const silent = await system.authority.prisma.apiInstance.create({
      data: { id: randomUUID(), leaseUntil: new Date(Date.now() + 60_000) },
    });
    try {
      expect((await removeFullAccess()).body).toMatchObject({ error: 'propagation_unconfirmed' });
      // The change is saved, so the retry changes nothing; the silent instance still has not confirmed it.
      const unconfirmed = await removeFullAccess();
      expect(unconfirmed.status).toBe(503);
      expect(unconfirmed.body).toMatchObject({ error: 'propagation_unconfirmed' });
    } finally {
      await system.authority.prisma.apiInstance.delete({ where: { id: silent.id } });
    }
    const retried = await removeFullAccess();
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ full_access: false });
    expect((await createSuggestion(second.url, app.secretKey)).status).toBe(403);
  }, 30_000);

  it('a rotation that an instance does not confirm still shows the new key, with a warning, instead of losing it', async () => {
    const app = await appWarmOnBothInstances();
    const silent = await system.authority.prisma.apiInstance.create({
      data: { id: randomUUID(), leaseUntil: new Date(Date.now() + 60_000) },
    });
    try {
      const rotated = await call<{ secret_key: string; warning: { code: string } }>(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/api-key/rotate`, { token: owner.token });
      expect(rotated.status).toBe(200);
      expect(rotated.body.warning).toMatchObject({ code: 'propagation_unconfirmed' });
      // The new key works; the instances that confirmed refuse the old one.
      expect((await createSuggestion(second.url, rotated.body.secret_key)).status).toBe(201);
      expect((await createSuggestion(second.url, app.secretKey)).status).toBe(401);
    } finally {
      await system.authority.prisma.apiInstance.delete({ where: { id: silent.id } });
    }
  }, 30_000);

  it('an instance that stops ends its lease, so key changes no longer wait for it', async () => {
    const third = await system.startAnotherApi();
    await eventually(async () => ((await system.authority.prisma.apiInstance.count()) >= 3 ? true : undefined), { what: 'three leases' });
    await third.stop();
    expect(await system.authority.prisma.apiInstance.count()).toBe(2);
  });
});
