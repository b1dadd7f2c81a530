import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Answer, Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

// The board read in full: one suggestion or ticket, and its comments or messages.
let system: RunningSystem;
let owner: Owner;
let app: { appId: number; secretKey: string; publicKey: string };
const url = () => system.api.url;
const ada = { external_id: 'user-ada', name: 'Ada' };
const olive = { type: 'member', external_id: null, name: 'Olive Owner' };

type Body = Record<string, unknown>;
const widget = (path: string, body: unknown) => call<Body>(url(), 'POST', `/widget/v1${path}`, { key: app.publicKey, body });
const board = (method: string, path: string, body?: unknown, token = owner.token, appId = app.appId) =>
  call<Body>(url(), method, `/dashboard/v1/apps/${appId}${path}`, { token, body });
const idOf = (answer: { body: Body }) => answer.body['id'] as number;

interface Page {
  items: Body[];
  next_cursor: string | null;
}

/** Every item of a thread, page after page of `limit`. */
async function everyPage(path: string, limit: number): Promise<{ pages: number; items: Body[] }> {
  const items: Body[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const answer: Answer<Page> = await call<Page>(url(), 'GET', `/dashboard/v1/apps/${app.appId}${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: owner.token });
    expect(answer.status).toBe(200);
    items.push(...answer.body.items);
    cursor = answer.body.next_cursor;
    pages += 1;
  } while (cursor !== null);
  return { pages, items };
}

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  app = await createApp(url(), owner.token, 'Board app');
  await call(url(), 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: true } });
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('one suggestion', () => {
  it('is answered as the list shows it, with the statuses it may move to now', async () => {
    const id = idOf(await widget('/suggestions', { title: 'Dark mode', user: ada }));
    expect((await board('PATCH', `/suggestions/${id}`, { status: 'planned' })).status).toBe(200);
    const listed = (await call<{ data: Body[] }>(url(), 'GET', `/dashboard/v1/apps/${app.appId}/suggestions`, { token: owner.token })).body.data.find((item) => item['id'] === id);
    const answer = await board('GET', `/suggestions/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...listed, allowed_statuses: ['under_review', 'in_progress', 'declined'] });
  });

  it("has its comments listed oldest first, each with its author: an end user's, then a member's", async () => {
    const id = idOf(await widget('/suggestions', { title: 'Export to CSV', user: ada }));
    const fromAda = await widget(`/suggestions/${id}/comments`, { body: 'Please', user: ada });
    const fromOlive = await board('POST', `/suggestions/${id}/comments`, { body: 'Planned for June' });
    const answer = await call<Page>(url(), 'GET', `/dashboard/v1/apps/${app.appId}/suggestions/${id}/comments`, { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      items: [
        { ...fromAda.body, author: { type: 'app_user', ...ada } },
        { ...fromOlive.body, author: olive },
      ],
      next_cursor: null,
    });
  });

  it('has its comments paged by limit and cursor, none skipped or repeated', async () => {
    const id = idOf(await widget('/suggestions', { title: 'Many comments', user: ada }));
    const written: number[] = [];
    for (let n = 1; n <= 5; n += 1) written.push(idOf(await board('POST', `/suggestions/${id}/comments`, { body: `Comment ${n}` })));
    const { pages, items } = await everyPage(`/suggestions/${id}/comments`, 2);
    expect(pages).toBe(3);
    expect(items.map((item) => item['id'])).toEqual(written);
  });
});

describe('one ticket', () => {
  it('is answered as the list shows it, with the statuses it may move to now: none once closed', async () => {
    const id = idOf(await widget('/tickets', { subject: 'Login fails', body: 'Since today', user: ada }));
    const open = await board('GET', `/tickets/${id}`);
    expect(open.body).toMatchObject({ id, status: 'open', allowed_statuses: ['pending', 'solved', 'closed'] });
    expect((await board('PATCH', `/tickets/${id}`, { status: 'closed' })).status).toBe(200);
    const listed = (await call<{ data: Body[] }>(url(), 'GET', `/dashboard/v1/apps/${app.appId}/tickets`, { token: owner.token })).body.data.find((item) => item['id'] === id);
    const closed = await board('GET', `/tickets/${id}`);
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ ...listed, allowed_statuses: [] });
  });

  it('has its messages listed oldest first, public replies and internal notes, each with its sender', async () => {
    const id = idOf(await widget('/tickets', { subject: 'Billing', body: 'Charged twice', user: ada }));
    const note = await board('POST', `/tickets/${id}/messages`, { body: 'Check the ledger', visibility: 'internal' });
    const reply = await board('POST', `/tickets/${id}/messages`, { body: 'Refunded', visibility: 'public' });
    const answer = await call<Page>(url(), 'GET', `/dashboard/v1/apps/${app.appId}/tickets/${id}/messages`, { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body.next_cursor).toBeNull();
    const [first, ...rest] = answer.body.items;
    expect(first).toMatchObject({ ticket_id: id, body: 'Charged twice', visibility: 'public', sender_type: 'app_user', sender: { type: 'app_user', ...ada } });
    expect(rest).toEqual([
      { ...note.body, sender: olive },
      { ...reply.body, sender: olive },
    ]);
  });

  it('has its messages paged by limit and cursor, none skipped or repeated', async () => {
    const id = idOf(await widget('/tickets', { subject: 'Long thread', body: 'First', user: ada }));
    for (let n = 1; n <= 4; n += 1) await board('POST', `/tickets/${id}/messages`, { body: `Note ${n}`, visibility: 'internal' });
    const { pages, items } = await everyPage(`/tickets/${id}/messages`, 2);
    expect(pages).toBe(3);
    expect(items.map((item) => item['body'])).toEqual(['First', 'Note 1', 'Note 2', 'Note 3', 'Note 4']);
  });
});

describe('the board read in full', () => {
  it('is open to a Member, not only to Owners and Admins', async () => {
    const email = `member-${Date.now()}@example.com`;
    const password = 'a long enough password';
    await call(url(), 'POST', '/dashboard/v1/members', { token: owner.token, body: { name: 'Mo', email, password, role: 'member' } });
    const token = (await call<{ token: string }>(url(), 'POST', '/dashboard/v1/sign-in', { body: { email, password } })).body.token;
    const suggestion = idOf(await widget('/suggestions', { title: 'Seen by members', user: ada }));
    const ticket = idOf(await widget('/tickets', { subject: 'Seen by members', body: 'Hi', user: ada }));
    for (const path of [`/suggestions/${suggestion}`, `/suggestions/${suggestion}/comments`, `/tickets/${ticket}`, `/tickets/${ticket}/messages`]) {
      expect({ path, status: (await board('GET', path, undefined, token)).status }).toEqual({ path, status: 200 });
    }
  });

  it("answers 404 for another team's app, another app's record, an id no record has and one that is not an id", async () => {
    const suggestion = idOf(await widget('/suggestions', { title: 'Ours', user: ada }));
    const ticket = idOf(await widget('/tickets', { subject: 'Ours', body: 'Hi', user: ada }));
    const otherTeam = await signUpTeam(url(), 'pro');
    const otherApp = await createApp(url(), owner.token, 'Another app of ours');
    const attempts: Array<[string, string, number, string]> = [];
    for (const [kind, id] of [['suggestions', suggestion], ['tickets', ticket]] as const) {
      const thread = kind === 'suggestions' ? 'comments' : 'messages';
      for (const path of [`/${kind}/${id}`, `/${kind}/${id}/${thread}`]) {
        attempts.push(['another team', path, app.appId, otherTeam.token]);
        attempts.push(['another app', path, otherApp.appId, owner.token]);
      }
      for (const missing of ['99999999', 'abc', '1e3']) {
        attempts.push(['no such record', `/${kind}/${missing}`, app.appId, owner.token]);
        attempts.push(['no such record', `/${kind}/${missing}/${thread}`, app.appId, owner.token]);
      }
    }
    for (const [why, path, appId, token] of attempts) {
      const answer = await board('GET', path, undefined, token, appId);
      expect({ why, path, appId, status: answer.status, error: answer.body['error'] }).toEqual({ why, path, appId, status: 404, error: 'not_found' });
    }
  });

  it('refuses a query parameter a thread does not take, naming it, with 400 validation_failed', async () => {
    const suggestion = idOf(await widget('/suggestions', { title: 'Parameters', user: ada }));
    const ticket = idOf(await widget('/tickets', { subject: 'Parameters', body: 'Hi', user: ada }));
    for (const path of [`/suggestions/${suggestion}/comments?order=desc`, `/tickets/${ticket}/messages?order=desc`]) {
      const answer = await board('GET', path);
      expect({ path, status: answer.status, error: answer.body['error'], field: answer.body['field'] }).toEqual({ path, status: 400, error: 'validation_failed', field: '/order' });
    }
  });

  it('refuses a limit outside 1 to 100 with 400 validation_failed', async () => {
    const suggestion = idOf(await widget('/suggestions', { title: 'Limits', user: ada }));
    for (const limit of ['0', '101', 'ten']) {
      const answer = await board('GET', `/suggestions/${suggestion}/comments?limit=${limit}`);
      expect({ limit, status: answer.status, error: answer.body['error'] }).toEqual({ limit, status: 400, error: 'validation_failed' });
    }
  });

  it('refuses a cursor another thread gave, or one made up, with 400 invalid_cursor', async () => {
    const first = idOf(await widget('/suggestions', { title: 'Cursor one', user: ada }));
    const second = idOf(await widget('/suggestions', { title: 'Cursor two', user: ada }));
    for (let n = 1; n <= 2; n += 1) await board('POST', `/suggestions/${first}/comments`, { body: `Comment ${n}` });
    const page = await call<Page>(url(), 'GET', `/dashboard/v1/apps/${app.appId}/suggestions/${first}/comments?limit=1`, { token: owner.token });
    const cursor = page.body.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    const ticket = idOf(await widget('/tickets', { subject: 'Cursor', body: 'Hi', user: ada }));
    for (const path of [`/suggestions/${second}/comments?cursor=${cursor}`, `/tickets/${ticket}/messages?cursor=${cursor}`, `/suggestions/${first}/comments?cursor=made-up`]) {
      const answer = await board('GET', path);
      expect({ path, status: answer.status, error: answer.body['error'] }).toEqual({ path, status: 400, error: 'invalid_cursor' });
    }
  });

  it("shows an erased user's data as erasure leaves it: their suggestion without its author, the team's comments on it, none of theirs, no ticket", async () => {
    const eve = { external_id: 'user-eve', name: 'Eve' };
    const suggestion = idOf(await widget('/suggestions', { title: 'Erased idea', user: eve }));
    await widget(`/suggestions/${suggestion}/comments`, { body: 'Mine', user: eve });
    const fromOlive = await board('POST', `/suggestions/${suggestion}/comments`, { body: 'Thanks' });
    const ticket = idOf(await widget('/tickets', { subject: 'Erased ticket', body: 'Hi', user: eve }));
    const erased = await call(url(), 'DELETE', `/api/v1/privacy/users/${eve.external_id}`, { key: app.secretKey });
    expect(erased.status).toBe(200);
    expect((await board('GET', `/suggestions/${suggestion}`)).body).toMatchObject({ author: { external_id: null, name: null }, comment_count: 1 });
    expect((await board('GET', `/suggestions/${suggestion}/comments`)).body).toEqual({ items: [{ ...fromOlive.body, author: olive }], next_cursor: null });
    expect((await board('GET', `/tickets/${ticket}`)).status).toBe(404);
    expect((await board('GET', `/tickets/${ticket}/messages`)).status).toBe(404);
  });
});
