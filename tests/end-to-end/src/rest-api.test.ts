import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { pruneIdempotencyKeys } from '../../../services/api/src/idempotency/prune-idempotency-keys.js';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let key: string;
let appId: number;
let otherKey: string;
const url = () => system.api.url;

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface Item {
  id: number;
  created_at: string;
  updated_at: string;
  author: { external_id: string; name: string | null };
  status: string;
}

async function fullAccessApp(token: string, name: string) {
  const app = await createApp(url(), token, name);
  await call(url(), 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token, body: { full_access: true } });
  return app;
}

const post = (path: string, body: unknown, headers: { key?: string; idempotencyKey?: string } = {}) =>
  fetch(`${url()}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${headers.key ?? key}`,
      ...(headers.idempotencyKey ? { 'idempotency-key': headers.idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });
const get = <T>(path: string, withKey = key) => call<T>(url(), 'GET', path, { key: withKey });

async function sweep(path: string, limit: number): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: { status: number; body: Page<Item> } = await get<Page<Item>>(`${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    items.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return items;
}

beforeAll(async () => {
  system = await startSystem();
  const owner = await signUpTeam(url(), 'pro');
  ({ appId, secretKey: key } = await fullAccessApp(owner.token, 'Main app'));
  const otherTeam = await signUpTeam(url(), 'pro');
  otherKey = (await fullAccessApp(otherTeam.token, 'Other team app')).secretKey;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('suggestions', () => {
  it('are created with their author, status and timestamps', async () => {
    const response = await post('/api/v1/suggestions', { title: 'Widgets', body: 'More', author: { external_id: 'u-1', name: 'Ada' } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      title: 'Widgets',
      status: 'open',
      author: { external_id: 'u-1', name: 'Ada' },
      comment_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('are listed newest first, each with its author', async () => {
    await post('/api/v1/suggestions', { title: 'Second', author: { external_id: 'u-2' } });
    const page = await get<Page<Item & { title: string }>>('/api/v1/suggestions');
    expect(page.status).toBe(200);
    expect(page.body.data[0]?.title).toBe('Second');
    expect(page.body.data[0]?.author).toEqual({ external_id: 'u-2', name: null });
    const times = page.body.data.map((item) => item.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('sweep with updated_since through every page, oldest update first, never skipping or repeating one when many share a timestamp', async () => {
    const since = new Date().toISOString();
    // Many rows with one updated_at: a single statement gives them the same timestamp.
    await system.api.prisma.suggestion.createMany({
      data: Array.from({ length: 23 }, (_, n) => ({ appId, title: `Bulk ${n}`, authorExternalId: 'bulk' })),
    });
    const shared = await system.api.prisma.suggestion.findMany({ where: { appId, authorExternalId: 'bulk' } });
    expect(new Set(shared.map((row) => row.updatedAt.getTime())).size).toBe(1);

    const swept = await sweep(`/api/v1/suggestions?updated_since=${encodeURIComponent(since)}`, 5);
    expect(swept.map((item) => item.id).sort((a, b) => a - b)).toEqual(shared.map((row) => row.id).sort((a, b) => a - b));
    const keys = swept.map((item) => `${item.updated_at}|${String(item.id).padStart(9, '0')}`);
    expect([...keys].sort()).toEqual(keys);
  });

  it('include an item updated exactly at updated_since (at or after), and not one updated before it', async () => {
    const created = await post('/api/v1/suggestions', { title: 'On the boundary', author: { external_id: 'edge' } });
    const { id, updated_at: at } = (await created.json()) as Item;
    const from = await get<Page<Item>>(`/api/v1/suggestions?updated_since=${encodeURIComponent(at)}`);
    expect(from.body.data.map((item) => item.id)).toContain(id);
    const after = new Date(Date.parse(at) + 1).toISOString();
    const later = await get<Page<Item>>(`/api/v1/suggestions?updated_since=${encodeURIComponent(after)}`);
    expect(later.body.data.map((item) => item.id)).not.toContain(id);
  });

  it('sweep the default order through every page without repeats', async () => {
    const all = await sweep('/api/v1/suggestions', 7);
    expect(new Set(all.map((item) => item.id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(25);
  });
});

describe('tickets', () => {
  it('are opened with a human-facing number and listed, also by updated_since', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await post('/api/v1/tickets', { subject: 'Cannot log in', body: 'Help', author: { external_id: 'u-3', name: 'Lin' } });
    const second = await post('/api/v1/tickets', { subject: 'Crash', body: 'On start', author: { external_id: 'u-4' } });
    expect(first.status).toBe(201);
    const a = (await first.json()) as { number: string; status: string };
    const b = (await second.json()) as { number: string };
    expect(a).toMatchObject({ status: 'open', author: { external_id: 'u-3', name: 'Lin' } });
    expect(a.number).toMatch(/^T-\d+$/);
    expect(Number(b.number.slice(2))).toBe(Number(a.number.slice(2)) + 1);
    const list = await get<Page<Item>>('/api/v1/tickets');
    expect(list.body.data.map((item) => (item as unknown as { number: string }).number).slice(0, 2)).toEqual([b.number, a.number]);
    const swept = await get<Page<Item>>(`/api/v1/tickets?updated_since=${encodeURIComponent(since)}`);
    expect(swept.body.data.map((item) => (item as unknown as { number: string }).number)).toEqual([a.number, b.number]);
  });
});

describe('Idempotency-Key', () => {
  it('returns the first answer to a retry and creates nothing twice', async () => {
    const body = { title: 'Once only', author: { external_id: 'u-5' } };
    const first = await post('/api/v1/suggestions', body, { idempotencyKey: 'retry-1' });
    const again = await post('/api/v1/suggestions', body, { idempotencyKey: 'retry-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await system.api.prisma.suggestion.count({ where: { title: 'Once only' } })).toBe(1);
  });

  it('creates once when the same request races itself', async () => {
    const body = { subject: 'Race', body: 'x', author: { external_id: 'u-6' } };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post('/api/v1/tickets', body, { idempotencyKey: 'race-1' })));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201]);
    const ids = new Set(await Promise.all(answers.map(async (answer) => ((await answer.json()) as { id: number }).id)));
    expect(ids.size).toBe(1);
    expect(await system.api.prisma.ticket.count({ where: { subject: 'Race' } })).toBe(1);
  });

  it('takes a retry whose body has its keys in another order, or whose path differs in case or a trailing slash, as the same request', async () => {
    const first = await post('/api/v1/suggestions', { title: 'Reordered', author: { external_id: 'u-9', name: 'Ada' } }, { idempotencyKey: 'reorder-1' });
    expect(first.status).toBe(201);
    const reordered = await post('/api/v1/suggestions', { author: { name: 'Ada', external_id: 'u-9' }, title: 'Reordered' }, { idempotencyKey: 'reorder-1' });
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    const otherPath = await post('/api/v1/Suggestions/', { title: 'Reordered', author: { external_id: 'u-9', name: 'Ada' } }, { idempotencyKey: 'reorder-1' });
    expect(otherPath.headers.get('idempotent-replayed')).toBe('true');
    expect(await system.api.prisma.suggestion.count({ where: { title: 'Reordered' } })).toBe(1);
  });

  it('still replays an answer stored with the hash keys were kept with before (the path as written, the body as sent)', async () => {
    const body = { title: 'Stored earlier', author: { external_id: 'u-10' } };
    const legacyHash = createHash('sha256').update(`POST /api/v1/suggestions\n${JSON.stringify(body)}`).digest('hex');
    await system.api.prisma.idempotencyRecord.create({
      data: { appId, key: 'legacy-1', requestHash: legacyHash, responseStatus: 201, responseBody: { id: 424242, title: 'Stored earlier' } },
    });
    const retried = await post('/api/v1/suggestions', body, { idempotencyKey: 'legacy-1' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await retried.json()).toMatchObject({ id: 424242 });
    expect((await post('/api/v1/suggestions', { ...body, title: 'Other' }, { idempotencyKey: 'legacy-1' })).status).toBe(422);
  });

  it('refuses the same key with a different body', async () => {
    await post('/api/v1/suggestions', { title: 'A', author: { external_id: 'u-7' } }, { idempotencyKey: 'reuse-1' });
    const other = await post('/api/v1/suggestions', { title: 'B', author: { external_id: 'u-7' } }, { idempotencyKey: 'reuse-1' });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error: 'idempotency_key_reused' });
  });

  it('is forgotten once past its retention: the same key is then a new request', async () => {
    const body = { title: 'Long ago', author: { external_id: 'u-11' } };
    const first = await post('/api/v1/suggestions', body, { idempotencyKey: 'aged-1' });
    expect(first.status).toBe(201);
    await system.api.prisma.idempotencyRecord.update({ where: { appId_key: { appId, key: 'aged-1' } }, data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
    const pool = new pg.Pool({ connectionString: system.env['DATABASE_URL'] });
    try {
      expect(await pruneIdempotencyKeys(pool, { retentionHours: 24 })).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.end();
    }
    const later = await post('/api/v1/suggestions', { ...body, title: 'Much later' }, { idempotencyKey: 'aged-1' });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(((await later.json()) as Item).id).not.toBe(((await first.json()) as Item).id);
  });

  it('is scoped to the app: another app may use the same key', async () => {
    const body = { title: 'Shared key', author: { external_id: 'u-8' } };
    expect((await post('/api/v1/suggestions', body, { idempotencyKey: 'shared' })).status).toBe(201);
    const other = await post('/api/v1/suggestions', body, { key: otherKey, idempotencyKey: 'shared' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('bad input', () => {
  it.each([
    ['a missing field', { author: { external_id: 'u' } }, '/title'],
    ['a wrong type', { title: 5, author: { external_id: 'u' } }, '/title'],
    ['an unknown field', { title: 't', author: { external_id: 'u' }, color: 'red' }, '/color'],
    ['an empty external id', { title: 't', author: { external_id: '' } }, '/author/external_id'],
  ])('gets 400 validation_failed naming the field: %s', async (_case, body, field) => {
    const response = await post('/api/v1/suggestions', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'validation_failed', field });
  });

  it.each([
    ['a suggestion title', '/api/v1/suggestions', { title: ' \t\n\u00a0', author: { external_id: 'u' } }, '/title'],
    ['a ticket subject', '/api/v1/tickets', { subject: '   ', body: 'Help', author: { external_id: 'u' } }, '/subject'],
    ['a ticket body', '/api/v1/tickets', { subject: 'Help', body: '\u2003', author: { external_id: 'u' } }, '/body'],
  ])('gets 400 validation_failed for %s that is white space alone', async (_case, path, body, field) => {
    const response = await post(path, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'validation_failed', field, message: expect.stringContaining('must not be blank') });
  });

  it('never answers a key back, even one pasted as the name of a body field or a query parameter', async () => {
    const pasted = key;
    const inBody = await post('/api/v1/suggestions', { title: 't', author: { external_id: 'u' }, [pasted]: 1 });
    expect(inBody.status).toBe(400);
    const inQuery = await fetch(`${url()}/api/v1/suggestions?${pasted}=1`, { headers: { authorization: `Bearer ${key}` } });
    expect(inQuery.status).toBe(400);
    const missing = await fetch(`${url()}/api/v1/suggestions`);
    // The help texts that name the header's form stay whole.
    expect(await missing.json()).toMatchObject({ error: 'missing_api_key', message: 'Send your secret key as "Authorization: Bearer sk_live_…".' });
    for (const answer of [await inBody.text(), await inQuery.text()]) {
      expect(answer).toContain('validation_failed');
      expect(answer).not.toContain(pasted);
      expect(answer).not.toContain(pasted.slice('sk_live_'.length));
    }
  });

  it('gets 400 malformed_json for a body that is not JSON', async () => {
    const response = await fetch(`${url()}/api/v1/suggestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{"title": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'malformed_json' });
  });

  it.each([
    ['limit=0', '/limit'],
    ['limit=101', '/limit'],
    ['updated_since=yesterday', '/updated_since'],
    ['cursor=nonsense', '/cursor'],
    ['sort=asc', '/sort'],
  ])('gets 400 naming the parameter for %s', async (query, field) => {
    const response = await get(`/api/v1/tickets?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field });
  });

  it('gets 400 for a cursor used with another query, another list or another app', async () => {
    const page = await get<Page<Item>>('/api/v1/suggestions?limit=1');
    const response = await get(`/api/v1/suggestions?limit=1&updated_since=2020-01-01T00:00:00Z&cursor=${page.body.next_cursor}`);
    expect(response.body).toMatchObject({ error: 'invalid_cursor' });
    expect((await get(`/api/v1/tickets?limit=1&cursor=${page.body.next_cursor}`)).body).toMatchObject({ error: 'invalid_cursor' });
    expect((await get(`/api/v1/suggestions?limit=1&cursor=${page.body.next_cursor}`, otherKey)).body).toMatchObject({ error: 'invalid_cursor' });
  });

  it.each([
    ['updated_since', '/api/v1/suggestions?updated_since=0000-01-01T00:00:00Z'],
    ['updated_since', '/api/v1/tickets?updated_since=0001-01-01T00:00:00%2B01:00'],
    ['from', '/api/v1/analytics?from=0000-01-01T00:00:00Z&to=2024-01-01T00:00:00Z'],
  ])('gets 400 validation_failed, not 500, for a time in year 0000, which the database has not got (%s)', async (field, path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'validation_failed', field: `/${field}` });
  });

  it('counts analytics over the thirty days before a `to` early in year 1 from year 1, not year 0', async () => {
    expect((await get('/api/v1/analytics?to=0001-01-05T00:00:00Z')).status).toBe(200);
  });

  it('gets 415 unsupported_media_type for a body that is not JSON', async () => {
    const sent = await fetch(`${url()}/api/v1/suggestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${key}` },
      body: 'title=Form&author=u-1',
    });
    expect(sent.status).toBe(415);
    expect(await sent.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('gets 400 validation_failed naming the field, not 500, for text holding U+0000', async () => {
    const refused = await post('/api/v1/tickets', { subject: 'Broken\u0000here', body: 'x', author: { external_id: 'nul-user' } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'validation_failed', field: '/subject' });
    expect((await get('/api/v1/suggestions?updated_since=2024-01-01T00:00:00Z%00')).status).toBe(400);
    // In a key, too (survey answers take any key), and however deep the body nests.
    const inKey = await post('/api/v1/tickets', { subject: 'Fine', body: 'x', author: { external_id: 'nul-user' }, ['odd\u0000key']: 1 });
    expect(await inKey.json()).toMatchObject({ error: 'validation_failed', field: '/odd\u0000key' });
    const deep = await fetch(`${url()}/api/v1/tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: `${'['.repeat(50_000)}"\u0000"${']'.repeat(50_000)}`,
    });
    expect(deep.status).toBe(400);
    expect((await get('/api/v1/privacy/users/%00')).body).toMatchObject({ error: 'validation_failed', field: 'externalId' });
  });

  it('exports and erases a user whose external id is 255 characters outside the Basic Multilingual Plane', async () => {
    const externalId = '🦊'.repeat(255);
    expect((await post('/api/v1/suggestions', { title: 'Fox', author: { external_id: externalId } })).status).toBe(201);
    const exported = await get<{ suggestions: unknown[] }>(`/api/v1/privacy/users/${encodeURIComponent(externalId)}`);
    expect(exported.status).toBe(200);
    expect(exported.body.suggestions).toHaveLength(1);
    expect((await call(url(), 'DELETE', `/api/v1/privacy/users/${encodeURIComponent(externalId)}`, { key })).status).toBe(200);
  });

  it.each([
    ['a leap second', 'updated_since=2024-06-30T23:59:60Z'],
    ['a leap second with an offset', 'updated_since=2024-07-01T01:59:60%2B02:00'],
  ])('gets 400 validation_failed for a timestamp that is well-formed but names no instant: %s', async (_case, query) => {
    const response = await get(`/api/v1/suggestions?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'validation_failed', field: '/updated_since' });
  });

  it.each([
    ['an id beyond any record', (o: string) => ({ o, t: '2024-01-01T00:00:00.000Z', i: 1e20 })],
    ['an id beyond a database integer', (o: string) => ({ o, t: '2024-01-01T00:00:00.000Z', i: 2 ** 31 })],
    ['a time the database cannot hold', (o: string) => ({ o, t: '-100000-01-01T00:00:00.000Z', i: 1 })],
    ['year 0000, which the database has not got', (o: string) => ({ o, t: '0000-01-01T00:00:00.000Z', i: 1 })],
    ['JSON that is not an object', () => null],
    ['a list of another tag', () => ({ o: 'n', t: '2024-01-01T00:00:00.000Z', i: 1 })],
  ])('gets 400 invalid_cursor for a crafted cursor with %s', async (_case, payload) => {
    const cursor = Buffer.from(JSON.stringify(payload(`suggestions:${appId}:n`))).toString('base64url');
    const response = await get(`/api/v1/suggestions?cursor=${cursor}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_cursor', field: '/cursor' });
  });

  it('gets 400 validation_failed, not 500, for a path that is not valid percent-encoding', async () => {
    const response = await get('/api/v1/privacy/users/50%off');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'validation_failed' });
  });

  it('gets 404 for an unknown route and 405 with Allow for a wrong method', async () => {
    expect((await get('/api/v1/nothing-here')).status).toBe(404);
    // A key pasted into the path by mistake is not answered back.
    for (const path of [`/api/v1/suggestions/${key}`, `/${key}`]) {
      const missing = await get(path);
      expect(missing.status).toBe(404);
      expect(JSON.stringify(missing.body)).not.toContain(key);
      expect(missing.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('sk_live_[redacted]') });
    }
    const wrong = await call(url(), 'DELETE', '/api/v1/suggestions', { key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect(wrong.body).toMatchObject({ error: 'method_not_allowed' });
  });
});

describe('isolation between apps of two teams', () => {
  it("never shows one app's data to another", async () => {
    await post('/api/v1/suggestions', { title: 'Secret roadmap', author: { external_id: 'u-9' } }, { key: otherKey });
    await post('/api/v1/tickets', { subject: 'Other ticket', body: 'x', author: { external_id: 'u-9' } }, { key: otherKey });
    const mine = await sweep('/api/v1/suggestions', 100);
    expect(mine.some((item) => (item as unknown as { title: string }).title === 'Secret roadmap')).toBe(false);
    const theirs = await sweep('/api/v1/suggestions?updated_since=2000-01-01T00:00:00Z', 100);
    expect(theirs.length).toBe(mine.length);
    const otherList = await get<Page<{ title: string }>>('/api/v1/suggestions?limit=100', otherKey);
    expect(otherList.body.data.map((item) => item.title).sort()).toEqual(['Secret roadmap', 'Shared key']);
    const otherTickets = await get<Page<{ subject: string }>>('/api/v1/tickets', otherKey);
    expect(otherTickets.body.data.map((item) => item.subject)).toEqual(['Other ticket']);
  });
});
