import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AuthenticationError, FeedbackClient, InsufficientScopeError } from '@feedback/api-client';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

// The published REST client against the running system.
let system: RunningSystem;
let owner: Owner;
let appId: number;
let client: FeedbackClient;
const url = () => system.api.url;
const ada = { external_id: 'user-ada', name: 'Ada' };

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  const app = await createApp(url(), owner.token, 'Client app');
  appId = app.appId;
  await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/api-key`, { token: owner.token, body: { full_access: true } });
  client = new FeedbackClient({ secretKey: app.secretKey, baseUrl: url() });
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('FeedbackClient against the running api', () => {
  it('creates once per idempotency key: the same key answers the first suggestion again', async () => {
    const first = await client.suggestions.create({ title: 'Offline mode', author: ada }, { idempotencyKey: 'client-e2e-1' });
    const again = await client.suggestions.create({ title: 'Offline mode', author: ada }, { idempotencyKey: 'client-e2e-1' });
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ title: 'Offline mode', status: 'open', author: ada });
  });

  it('iterates every suggestion across pages', async () => {
    for (const title of ['A', 'B', 'C', 'D']) await client.suggestions.create({ title, author: ada });
    const titles: string[] = [];
    for await (const suggestion of client.suggestions.listAll({ limit: 2 })) titles.push(suggestion.title);
    expect(titles).toEqual(expect.arrayContaining(['A', 'B', 'C', 'D', 'Offline mode']));
    expect(titles).toHaveLength(5);
  });

  it('sweeps tickets updated since a time, and sees a ticket changed after it', async () => {
    const before = await client.tickets.create({ subject: 'Old', body: 'First', author: ada });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await client.tickets.create({ subject: 'New', body: 'Second', author: ada });
    const swept: number[] = [];
    for await (const ticket of client.tickets.listUpdatedSince(since)) swept.push(ticket.id);
    expect(swept).toEqual([after.id]);
    await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/tickets/${before.id}`, { token: owner.token, body: { status: 'solved' } });
    const again: number[] = [];
    for await (const ticket of client.tickets.listUpdatedSince(since)) again.push(ticket.id);
    expect(again).toEqual([after.id, before.id]);
  });

  it('reads analytics and a user export, and erases a user idempotently', async () => {
    expect((await client.analytics.get({ from: new Date(Date.now() - 86_400_000) })).suggestions).toBeDefined();
    const exported = await client.privacy.exportUser('user-ada');
    expect(JSON.stringify(exported)).toContain('Offline mode');
    await client.privacy.eraseUser('user-ada');
    expect(await client.privacy.eraseUser('user-ada')).toBeDefined();
  });

  it('throws InsufficientScopeError with the scopes and where to manage them for a key lacking one', async () => {
    const narrow = await createApp(url(), owner.token, 'Narrow app');
    expect((await grantScopes(url(), owner.token, narrow.appId, ['suggestions:read'])).status).toBe(200);
    const failure = (await new FeedbackClient({ secretKey: narrow.secretKey, baseUrl: url() }).analytics.get().catch((error: unknown) => error)) as InsufficientScopeError;
    expect(failure).toBeInstanceOf(InsufficientScopeError);
    expect(failure.requiredScope).toBe('analytics:read');
    expect(failure.grantedScopes).toEqual(expect.arrayContaining(['suggestions:read']));
    expect(failure.grantedScopes).not.toContain('analytics:read');
    expect(failure.manageScopesUrl).toContain(`/apps/${narrow.appId}/settings/api-keys`);
  });

  it('throws AuthenticationError once the key is revoked, and after a rotation for the old key', async () => {
    const app = await createApp(url(), owner.token, 'Short-lived app');
    await grantScopes(url(), owner.token, app.appId, ['suggestions:read']);
    const revoked = new FeedbackClient({ secretKey: app.secretKey, baseUrl: url() });
    await revoked.suggestions.list();
    expect((await call(url(), 'POST', `/dashboard/v1/apps/${app.appId}/api-key/revoke`, { token: owner.token })).status).toBe(200);
    await expect(revoked.suggestions.list()).rejects.toBeInstanceOf(AuthenticationError);

    expect((await call(url(), 'POST', `/dashboard/v1/apps/${app.appId}/api-key/restore`, { token: owner.token })).status).toBe(200);
    const rotated = await call<{ secret_key: string }>(url(), 'POST', `/dashboard/v1/apps/${app.appId}/api-key/rotate`, { token: owner.token });
    expect(rotated.status).toBe(200);
    await expect(revoked.suggestions.list()).rejects.toMatchObject({ status: 401 });
    await expect(new FeedbackClient({ secretKey: rotated.body.secret_key, baseUrl: url() }).suggestions.list()).resolves.toBeDefined();
  });
});
