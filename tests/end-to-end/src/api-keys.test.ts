import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashSecretKey } from '@feedback/keys';
import { eventually, untilSomeoneWaitsOn } from '@feedback/test-support';
import pg from 'pg';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import type { Answer, Owner } from './dashboard.js';
import { connectRpcCaller, startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
const url = () => system.api.url;
/** Every answer of this file, checked at the end for keys and hashes. */
const answers: Answer[] = [];
const secrets: string[] = [];

async function record<T extends Answer>(answer: Promise<T>): Promise<T> {
  const settled = await answer;
  answers.push(settled);
  return settled;
}

const suggestion = { title: 'Offline mode', author: { external_id: 'user-7', name: 'Grace' } };
const createSuggestion = (key: string) => record(call(url(), 'POST', '/api/v1/suggestions', { key, body: suggestion }));
const dashboard = (method: string, path: string, body?: unknown) => record(call(url(), method, path, { token: owner.token, body }));

/** Bodies a server must not read before it knows the caller may write: broken JSON, and a form. */
const unreadableBodies = [
  { 'content-type': 'application/json', body: '{"title": ' },
  { 'content-type': 'application/x-www-form-urlencoded', body: 'title=Form' },
];
const sendUnreadable = (key: string, { body, ...headers }: (typeof unreadableBodies)[number]) =>
  fetch(`${url()}/api/v1/suggestions`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${key}` }, body });

async function newApp(name = 'App') {
  const app = await createApp(url(), owner.token, name);
  secrets.push(app.secretKey);
  return app;
}

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(system.api.url, 'pro');
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('a new app key', () => {
  it('has exactly suggestions:read and tickets:read, and its first write gets the 403 of section 7', async () => {
    const { appId, secretKey } = await newApp();
    const view = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key`);
    expect(view.body).toMatchObject({ scopes: ['suggestions:read', 'tickets:read'], full_access: false, status: 'active' });
    const refused = await createSuggestion(secretKey);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'suggestions:write' });
    // Whatever the body: the scope is checked before the body is read.
    for (const unreadable of unreadableBodies) {
      const answer = await sendUnreadable(secretKey, unreadable);
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ error: 'insufficient_scope' });
    }
  });

  it('is shown in full only at rotation: creating the app shows none, the key view holds a display prefix, never the key', async () => {
    const created = await dashboard('POST', '/dashboard/v1/apps', { name: 'Keyless answer' });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('secret_key');
    expect(JSON.stringify(created.body)).not.toMatch(/sk_live_[A-Za-z0-9]{20}/);
    const appId = (created.body['app'] as { id: number }).id;
    const rotated = await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/rotate`);
    const secretKey = rotated.body['secret_key'] as string;
    secrets.push(secretKey);
    expect(secretKey).toMatch(/^sk_live_/);
    const view = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key`);
    expect(view.body).toMatchObject({ display_prefix: `${secretKey.slice(0, 12)}…`, scopes: ['suggestions:read', 'tickets:read'] });
    expect(JSON.stringify(view.body)).not.toContain(secretKey);
  });
});

describe('the key of an app that is not there', () => {
  it('is 404 for an app id that is not a number, as for one beyond any app and for another team\'s', async () => {
    for (const appId of ['abc', '1e3', '99999999999']) {
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['POST', '/rotate'], ['POST', '/revoke']] as const) {
        const answer = await dashboard(method, `/dashboard/v1/apps/${appId}/api-key${path}`, method === 'PATCH' ? { grant: ['suggestions:write'] } : undefined);
        expect({ appId, method, path, status: answer.status, error: answer.body['error'] }).toEqual({ appId, method, path, status: 404, error: 'not_found' });
      }
    }
  });
});

describe('scopes', () => {
  it('gains write permission only when a member grants it, and loses it when removed', async () => {
    const { appId, secretKey } = await newApp();
    expect((await grantScopes(url(), owner.token, appId, ['suggestions:write'])).status).toBe(200);
    expect((await createSuggestion(secretKey)).status).toBe(201);
    const removed = await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { remove: ['suggestions:write'] });
    expect(removed.body['scopes']).toEqual(['suggestions:read', 'tickets:read']);
    expect((await createSuggestion(secretKey)).status).toBe(403);
  });

  it.each([
    ['GET', '/api/v1/suggestions', 'suggestions:read'],
    ['POST', '/api/v1/suggestions', 'suggestions:write'],
    ['GET', '/api/v1/tickets', 'tickets:read'],
    ['POST', '/api/v1/tickets', 'tickets:write'],
    ['GET', '/api/v1/analytics', 'analytics:read'],
    ['GET', '/api/v1/privacy/users/u-1', 'privacy:read'],
    ['DELETE', '/api/v1/privacy/users/u-1', 'privacy:write'],
  ])('%s %s needs %s, and nothing else the key holds stands in for it', async (method, path, scope) => {
    const { appId, secretKey } = await newApp();
    const everyOther = ['suggestions:read', 'suggestions:write', 'tickets:read', 'tickets:write', 'analytics:read', 'privacy:read', 'privacy:write'].filter((other) => other !== scope);
    await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { grant: everyOther.filter((other) => !['suggestions:read', 'tickets:read'].includes(other)), remove: [scope] });
    const body = method === 'POST' ? (path.endsWith('tickets') ? { subject: 'Help', body: 'Please', author: { external_id: 'u-1' } } : suggestion) : undefined;
    const refused = await record(call(url(), method, path, { key: secretKey, body }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: scope });
    await grantScopes(url(), owner.token, appId, [scope]);
    const allowed = await record(call(url(), method, path, { key: secretKey, body }));
    expect(allowed.status).toBeLessThan(300);
  });

  it('treats Full access as every scope, current and future, without listing them', async () => {
    const { appId, secretKey } = await newApp();
    const granted = await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { full_access: true });
    expect(granted.body).toMatchObject({ full_access: true, scopes: ['suggestions:read', 'tickets:read'] });
    expect((await createSuggestion(secretKey)).status).toBe(201);
  });

  it('keeps every one of several grants made at the same moment, and audits each', async () => {
    const { appId } = await newApp();
    const grants = ['suggestions:write', 'tickets:write', 'analytics:read', 'privacy:read'];
    const answers = await Promise.all(grants.map((scope) => grantScopes(url(), owner.token, appId, [scope])));
    expect(answers.map((answer) => answer.status)).toEqual(grants.map(() => 200));
    const view = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key`);
    expect([...(view.body['scopes'] as string[])].sort()).toEqual(['suggestions:read', 'tickets:read', ...grants].sort());
    const audit = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key/audit`);
    const granted = (audit.body['items'] as Array<{ action: string; scopes: string[] }>).filter((item) => item.action === 'scopes_granted');
    expect(granted.flatMap((item) => item.scopes).sort()).toEqual([...grants].sort());
  });

  it('refuses an unknown scope, naming the field', async () => {
    const { appId } = await newApp();
    const answer = await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { grant: ['everything:write'] });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: '/grant/0' });
  });
});

describe('revoke, restore and rotate', () => {
  it('revoke: every request with the key gets 401 at once; the key value does not change; restore brings it back', async () => {
    const { appId, secretKey } = await newApp();
    await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { full_access: true });
    expect((await createSuggestion(secretKey)).status).toBe(201); // now cached by the api
    const revoked = await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/revoke`);
    expect(revoked.body).toMatchObject({ status: 'revoked', display_prefix: `${secretKey.slice(0, 12)}…` });
    const refused = await createSuggestion(secretKey);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'revoked_api_key' });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // Whatever the request carries: the key is checked before the body is read.
    for (const unreadable of unreadableBodies) {
      const answer = await sendUnreadable(secretKey, unreadable);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ error: 'revoked_api_key' });
    }

    const restored = await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/restore`);
    expect(restored.body).toMatchObject({ status: 'active' });
    expect((await createSuggestion(secretKey)).status).toBe(201);
  });

  it('rotate: a new key shown once, scopes kept, the old key refused at once', async () => {
    const { appId, secretKey } = await newApp();
    await grantScopes(url(), owner.token, appId, ['suggestions:write']);
    expect((await createSuggestion(secretKey)).status).toBe(201);
    const rotated = await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/rotate`);
    const fresh = rotated.body['secret_key'] as string;
    secrets.push(fresh);
    expect(fresh).toMatch(/^sk_live_/);
    expect(fresh).not.toBe(secretKey);
    expect(rotated.body['api_key']).toMatchObject({ scopes: ['suggestions:read', 'tickets:read', 'suggestions:write'] });
    const old = await createSuggestion(secretKey);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ error: 'invalid_api_key' });
    expect((await createSuggestion(fresh)).status).toBe(201);
  });

  it('rotate: not committed when it would end after the dashboard stopped waiting; the key in use keeps working', async () => {
    const { appId, secretKey } = await newApp('Impatient');
    await grantScopes(url(), owner.token, appId, ['suggestions:write']);
    const keyRow = () => system.authority.prisma.apiKey.findFirstOrThrow({ where: { appId } });
    const before = await keyRow();
    // A dashboard that waits 1.5 s: enough for the rotation and the key change's 1 s notice, unless the rotation is held up.
    const impatient = await connectRpcCaller(system, { name: 'impatient-dashboard', timeoutMs: 1500 });
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM authority.api_keys WHERE id = $1 FOR UPDATE', [before.id]);
      const late = impatient.call('authority.rotateKey', { session: owner.token, app_id: appId });
      await untilSomeoneWaitsOn(holder, 'the rotation to wait for the key');
      // Held until less than the notice's second is left: the rotation must not commit.
      await new Promise((resolve) => setTimeout(resolve, 700));
      await holder.query('COMMIT');
      // Refused at once (or, on a machine slow enough, after the caller gave up): either way not committed.
      const refused = await late.then(() => undefined, (error: unknown) => error as { code?: string });
      expect(['service_unavailable', 'rpc_timeout']).toContain(refused?.code);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await impatient.close();
    }
    const after = await keyRow();
    expect(after.keyHash).toBe(before.keyHash);
    expect(after.rotatedAt).toEqual(before.rotatedAt);
    expect((await createSuggestion(secretKey)).status).toBe(201);
    const audit = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key/audit`);
    expect((audit.body['items'] as Array<{ action: string }>).filter((item) => item.action === 'rotated')).toHaveLength(1);
  });

  it('rotate: a revoked key becomes a new active key with the same scopes and Full access, and the revoked value stays refused', async () => {
    const { appId, secretKey } = await newApp();
    await dashboard('PATCH', `/dashboard/v1/apps/${appId}/api-key`, { grant: ['suggestions:write'], full_access: true });
    await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/revoke`);
    const rotated = await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body['secret_key'] as string;
    secrets.push(fresh);
    expect(fresh).toMatch(/^sk_live_/);
    expect(rotated.body['api_key']).toMatchObject({
      status: 'active',
      scopes: ['suggestions:read', 'tickets:read', 'suggestions:write'],
      full_access: true,
      display_prefix: `${fresh.slice(0, 12)}…`,
    });
    const old = await createSuggestion(secretKey);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ error: 'invalid_api_key' });
    expect((await createSuggestion(fresh)).status).toBe(201);
    // Full access is kept: a scope the key never listed works too.
    expect((await record(call(url(), 'GET', '/api/v1/analytics', { key: fresh }))).status).toBe(200);
    const audit = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key/audit`);
    expect((audit.body['items'] as Array<{ action: string }>).map((item) => item.action)).toEqual([
      'rotated',
      'revoked',
      'full_access_granted',
      'scopes_granted',
      'rotated',
      'created',
    ]);
  });
});

describe('an app id no app can have', () => {
  it.each(['2147483648', '99999999999999999999'])('is answered 404 not_found, like an app of another team: %s', async (id) => {
    for (const [method, path] of [
      ['GET', `/dashboard/v1/apps/${id}/api-key`],
      ['PATCH', `/dashboard/v1/apps/${id}/api-key`],
      ['POST', `/dashboard/v1/apps/${id}/api-key/revoke`],
      ['GET', `/dashboard/v1/apps/${id}/suggestions`],
    ] as const) {
      const answer = await dashboard(method, path, method === 'PATCH' ? { full_access: true } : undefined);
      expect({ method, path, status: answer.status, error: answer.body['error'] }).toEqual({ method, path, status: 404, error: 'not_found' });
    }
  });
});

describe('audit trail and last usage', () => {
  it('lists every key action with who did it and when, newest first', async () => {
    const { appId } = await newApp();
    await grantScopes(url(), owner.token, appId, ['tickets:write']);
    // Pressed twice each: the second changes nothing, and the trail shows what changed.
    for (const action of ['revoke', 'revoke', 'restore', 'restore']) {
      expect((await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/${action}`)).status).toBe(200);
    }
    await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/rotate`);
    const audit = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key/audit`);
    const items = audit.body['items'] as Array<{ action: string; actor: { member_id: string; name: string }; scopes: string[]; created_at: string }>;
    // The first rotation is the one that showed the app's first key.
    expect(items.map((item) => item.action)).toEqual(['rotated', 'restored', 'revoked', 'scopes_granted', 'rotated', 'created']);
    expect(items[3]?.scopes).toEqual(['tickets:write']);
    for (const item of items) expect(item.actor).toEqual({ member_id: owner.memberId, name: 'Olive Owner' });
  });

  it('records last usage without a write per request, and lists it', async () => {
    const { appId, secretKey } = await newApp();
    await grantScopes(url(), owner.token, appId, ['suggestions:write']);
    expect((await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key`)).body['last_used_at']).toBeNull();
    await createSuggestion(secretKey);
    await system.api.keyUsage.flush();
    const lastUsed = await eventually(async () => {
      const view = await dashboard('GET', `/dashboard/v1/apps/${appId}/api-key`);
      return (view.body['last_used_at'] as string | null) ?? undefined;
    }, { what: 'last usage to be recorded' });
    expect(Date.now() - Date.parse(lastUsed)).toBeLessThan(60_000);
  });
});

describe('plans', () => {
  it('refuses a Free-plan team with its own stable code', async () => {
    const free = await signUpTeam(url(), 'starter');
    const app = await createApp(url(), free.token, 'Free app');
    secrets.push(app.secretKey);
    await call(url(), 'PATCH', '/dashboard/v1/team', { token: free.token, body: { plan: 'free' } });
    const answer = await createSuggestion(app.secretKey);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'plan_upgrade_required' });
  });
});

describe('every response', () => {
  it('carries a request id, echoing a safe one the client sent', async () => {
    const mine = await fetch(`${url()}/api/v1/suggestions`, { headers: { 'x-request-id': 'client-trace-1' } });
    expect(mine.headers.get('x-request-id')).toBe('client-trace-1');
    for (const path of ['/dashboard/v1/team', '/health/ready', '/no/such/route', '/api/v1/openapi.json']) {
      const generated = await fetch(`${url()}${path}`);
      expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

/** How many times this api asked the authority about a key and was told it is revoked. */
async function revokedAnswersFromAuthority(): Promise<number> {
  const text = await (await fetch(system.api.metricsUrl)).text();
  const line = text.split('\n').find((row) => row.startsWith('feedback_rpc_call_duration_seconds_count{') && row.includes('method="authority.verifySecretKey"') && row.includes('outcome="revoked_key"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('repeated authentication failures', () => {
  it('are answered 429 with Retry-After and a stable code, while a working key from the same address goes on working', async () => {
    const { secretKey } = await newApp();
    const { secretKey: working, appId: workingApp } = await newApp();
    expect((await grantScopes(url(), owner.token, workingApp, ['suggestions:write'])).status).toBe(200);
    expect((await createSuggestion(working)).status).toBe(201);
    const wrong = secretKey.replace(/.$/, (last) => (last === 'a' ? 'b' : 'a'));
    let limited: Answer | undefined;
    for (let attempt = 0; attempt < 40 && !limited; attempt += 1) {
      const answer = await createSuggestion(wrong);
      if (answer.status === 429) limited = answer;
    }
    expect(limited?.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    // The old key from behind the same NAT does not lock out the integration with the new one,
    // nor the team's dashboard (counted apart).
    expect((await createSuggestion(working)).status).toBe(201);
    expect((await createSuggestion(wrong)).status).toBe(429);
    expect((await call(url(), 'GET', '/dashboard/v1/team', { token: owner.token })).status).toBe(200);
  });

  it('never turn a revoked key into 429: every request with it gets 401, and its refusals do not lock out the address', async () => {
    // An address of its own (the api trusts X-Forwarded-For from loopback), whatever other tests
    // left the test runner's address with.
    const fromOffice = (key: string) => record(call(url(), 'POST', '/api/v1/suggestions', { key, body: suggestion, headers: { 'x-forwarded-for': '203.0.113.7' } }));
    const { secretKey: revokedKey, appId } = await newApp();
    const { secretKey: working, appId: workingApp } = await newApp();
    expect((await grantScopes(url(), owner.token, workingApp, ['suggestions:write'])).status).toBe(200);
    // Revoked before this api ever saw it work: like an integration that went on sending it for
    // longer than any memory of its last success.
    expect((await dashboard('POST', `/dashboard/v1/apps/${appId}/api-key/revoke`)).status).toBe(200);
    const askedBefore = await revokedAnswersFromAuthority();
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const answer = await fromOffice(revokedKey);
      expect([answer.status, answer.body['error']]).toEqual([401, 'revoked_api_key']);
    }
    // Not rate-limited, and not a call to the authority each: the refusal is cached.
    expect((await revokedAnswersFromAuthority()) - askedBefore).toBe(1);
    // A key first seen here, from the same address, is not blocked by those refusals.
    expect((await fromOffice(working)).status).toBe(201);

    // Once the address is over the limit with guesses, the revoked key still gets 401.
    const guess = working.replace(/.$/, (last) => (last === 'a' ? 'b' : 'a'));
    for (let attempt = 0; attempt < 40 && (await fromOffice(guess)).status !== 429; attempt += 1);
    expect((await fromOffice(guess)).status).toBe(429);
    expect((await fromOffice(revokedKey)).status).toBe(401);
  });
});

describe('secrets', () => {
  it('never appear in a response body or a log line: no key, no key hash', () => {
    expect(secrets.length).toBeGreaterThan(5);
    const bodies = answers.map((answer) => JSON.stringify(answer.body)).join('\n');
    const logs = system.logs.join('\n');
    for (const secret of secrets) {
      const hash = hashSecretKey(secret);
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(hash);
      expect(bodies).not.toContain(hash);
    }
    // The only bodies holding a key are the rotation answers that show it once.
    const showing = answers.filter((answer) => secrets.some((secret) => JSON.stringify(answer.body).includes(secret)));
    expect(showing.every((answer) => 'secret_key' in answer.body)).toBe(true);
  });
});
