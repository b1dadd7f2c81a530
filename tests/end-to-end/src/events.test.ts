import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { domainEventContract } from '@feedback/contracts';
import type { DomainEvent } from '@feedback/contracts';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
let publicKey: string;
const url = () => system.api.url;
const ada = { external_id: 'user-ada', name: 'Ada' };
const bob = { external_id: 'user-bob', name: 'Bob' };
const member = { type: 'member', external_id: null, name: 'Olive Owner' };

const widget = (path: string, body: unknown, key = publicKey) => call<Record<string, unknown>>(url(), 'POST', `/widget/v1${path}`, { key, body });
const dashboard = (method: string, path: string, body?: unknown, token = owner.token) =>
  call<Record<string, unknown>>(url(), method, `/dashboard/v1/apps/${appId}${path}`, { token, body });

/** The events written since `position`, oldest first, each checked against the contract. */
async function eventsAfter(position: bigint): Promise<DomainEvent[]> {
  const rows = await system.api.prisma.outboxEvent.findMany({ where: { position: { gt: position } }, orderBy: { position: 'asc' } });
  return rows.map((row) => domainEventContract.parse(row.payload));
}
async function lastPosition(): Promise<bigint> {
  return (await system.api.prisma.outboxEvent.aggregate({ _max: { position: true } }))._max.position ?? 0n;
}

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  const app = await createApp(url(), owner.token, 'Events app');
  appId = app.appId;
  publicKey = app.publicKey;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('suggestions', () => {
  let suggestionId: number;

  it('submitted from the widget: suggestion.created, the user both author and sender', async () => {
    const since = await lastPosition();
    const created = await widget('/suggestions', { title: 'Dark mode', user: ada });
    expect(created.status).toBe(201);
    suggestionId = created.body['id'] as number;
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({
      event: 'suggestion.created',
      app: { id: appId, public_key: publicKey },
      data: { suggestion: { id: suggestionId, status: 'open' }, author: ada, sender: { type: 'app_user', ...ada } },
    });
  });

  it('commented by a member: author is the suggestion owner, sender the member with a null external id', async () => {
    const since = await lastPosition();
    expect((await dashboard('POST', `/suggestions/${suggestionId}/comments`, { body: 'Thanks!' })).status).toBe(201);
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({ event: 'suggestion.commented', data: { suggestion_id: suggestionId, comment: { body: 'Thanks!' }, author: ada, sender: member } });
  });

  it('commented by its own author from the widget: author and sender are the same person', async () => {
    const since = await lastPosition();
    await widget(`/suggestions/${suggestionId}/comments`, { body: 'Also on iPad', user: ada });
    const [event] = await eventsAfter(since);
    expect(event?.data).toMatchObject({ author: ada, sender: { type: 'app_user', ...ada } });
  });

  it('moved on the board: suggestion.status_changed with the status before and after', async () => {
    const since = await lastPosition();
    const moved = await dashboard('PATCH', `/suggestions/${suggestionId}`, { status: 'planned' });
    expect(moved.body).toMatchObject({ status: 'planned', comment_count: 2 });
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({ event: 'suggestion.status_changed', data: { status_before: 'open', status_after: 'planned', author: ada, sender: member } });
  });

  it('refuses an impossible transition with the statuses it could go to, and writes no event', async () => {
    const since = await lastPosition();
    const refused = await dashboard('PATCH', `/suggestions/${suggestionId}`, { status: 'completed' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'invalid_transition', status_before: 'planned', allowed_statuses: ['under_review', 'in_progress', 'declined'] });
    expect(await eventsAfter(since)).toEqual([]);
  });
});

describe('tickets', () => {
  let ticketId: number;
  let ticketNumber: string;

  it('opened from the widget: ticket.created', async () => {
    const since = await lastPosition();
    const opened = await widget('/tickets', { subject: 'Crash', body: 'On launch', user: bob });
    ticketId = opened.body['id'] as number;
    ticketNumber = opened.body['number'] as string;
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({ event: 'ticket.created', data: { ticket: { id: ticketId, number: ticketNumber }, author: bob, sender: { type: 'app_user', ...bob } } });
  });

  it('replied to publicly by the team: ticket.replied with the fields of section 6, sender_type agent', async () => {
    const since = await lastPosition();
    const reply = await dashboard('POST', `/tickets/${ticketId}/messages`, { body: 'Fixed in 2.1', visibility: 'public' });
    expect(reply.status).toBe(201);
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({
      event: 'ticket.replied',
      data: { ticket_id: ticketId, ticket_number: ticketNumber, message_id: reply.body['id'], sender_type: 'agent', author: bob, sender: member },
    });
    expect(typeof (event?.data as { ticket_id: unknown }).ticket_id).toBe('number');
  });

  it('given an internal note: no event at all', async () => {
    const since = await lastPosition();
    expect((await dashboard('POST', `/tickets/${ticketId}/messages`, { body: 'Customer is on old build', visibility: 'internal' })).status).toBe(201);
    expect(await eventsAfter(since)).toEqual([]);
  });

  it('set to pending by the team, then answered by its author: reopened (status_changed) and ticket.replied from the user', async () => {
    await dashboard('PATCH', `/tickets/${ticketId}`, { status: 'pending' });
    const since = await lastPosition();
    expect((await widget(`/tickets/${ticketId}/replies`, { body: 'Still crashes', user: bob })).status).toBe(201);
    const events = await eventsAfter(since);
    expect(events.map((event) => event.event)).toEqual(['ticket.status_changed', 'ticket.replied']);
    expect(events[0]?.data).toMatchObject({ status_before: 'pending', status_after: 'open', sender: { type: 'app_user', ...bob } });
    expect(events[1]?.data).toMatchObject({ sender_type: 'app_user', author: bob, sender: { type: 'app_user', ...bob } });
  });

  it("refuses a reply from someone who is not the ticket's author, as if there were no such ticket", async () => {
    const answer = await widget(`/tickets/${ticketId}/replies`, { body: 'me too', user: ada });
    expect(answer.status).toBe(404);
    // Word for word what a ticket id that does not exist gets: the widget's key is public, and
    // a different answer would show which ticket ids exist.
    const missing = await widget(`/tickets/${ticketId + 1_000_000}/replies`, { body: 'me too', user: ada });
    expect(missing.status).toBe(404);
    expect(String(answer.body['message'])).toBe(String(missing.body['message']).replace(String(ticketId + 1_000_000), String(ticketId)));
  });

  it('refuses messages on a closed ticket, and a closed ticket stays closed', async () => {
    await dashboard('PATCH', `/tickets/${ticketId}`, { status: 'closed' });
    const reply = await widget(`/tickets/${ticketId}/replies`, { body: 'hello?', user: bob });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ error: 'ticket_closed' });
    const reopen = await dashboard('PATCH', `/tickets/${ticketId}`, { status: 'open' });
    expect(reopen.body).toMatchObject({ error: 'invalid_transition', allowed_statuses: [] });
  });
});

describe('survey responses', () => {
  it('survey.response.created: author and sender match, and the legacy app_user_id stays', async () => {
    const since = await lastPosition();
    const answer = await widget('/survey-responses', { survey_id: 'nps-q4', score: 9, answers: { reason: 'fast' }, user: ada });
    expect(answer.status).toBe(201);
    const [event] = await eventsAfter(since);
    expect(event).toMatchObject({
      event: 'survey.response.created',
      data: { response: { survey_id: 'nps-q4', score: 9, answers: { reason: 'fast' } }, app_user_id: ada.external_id, author: ada, sender: { type: 'app_user', ...ada } },
    });
  });

  it('refuses a score outside 0 to 10', async () => {
    const answer = await widget('/survey-responses', { survey_id: 'nps', score: 11, user: ada });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field: '/score' });
  });
});

describe('access', () => {
  it('refuses the widget without a valid public key', async () => {
    const answer = await widget('/suggestions', { title: 'x', user: ada }, 'pk_live_0000000000000000000000');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'invalid_public_key' });
  });

  it("keeps another team's members away from this app's records", async () => {
    const stranger = await signUpTeam(url(), 'pro');
    const answer = await dashboard('PATCH', '/suggestions/1', { status: 'declined' }, stranger.token);
    expect(answer.status).toBe(404);
  });

  it('lets a Member (not only Owners and Admins) work on feedback', async () => {
    const email = `helper-${Date.now()}@example.com`;
    await call(url(), 'POST', '/dashboard/v1/members', { token: owner.token, body: { name: 'Helper', email, password: 'a long enough password', role: 'member' } });
    const session = await call<{ token: string }>(url(), 'POST', '/dashboard/v1/sign-in', { body: { email, password: 'a long enough password' } });
    const list = await dashboard('GET', '/suggestions', undefined, session.body.token);
    expect(list.status).toBe(200);
    expect((list.body['data'] as unknown[]).length).toBeGreaterThan(0);
  });
});
