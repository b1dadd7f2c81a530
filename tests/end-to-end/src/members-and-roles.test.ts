import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
const url = () => system.api.url;
/** Every session token this file was given, checked at the end against the logs. */
const tokens: string[] = [];

async function addMember(role: 'owner' | 'admin' | 'member', token = owner.token) {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'a long enough password';
  const added = await call<{ id: string }>(url(), 'POST', '/dashboard/v1/members', { token, body: { name: `${role} person`, email, password, role } });
  return { added, email, password };
}

interface Session {
  token: string;
  expires_at: string;
  member: { id: string; role: string };
  team: { id: string };
}

async function signIn(email: string, password: string, baseUrl = url()) {
  const answer = await call<Session>(baseUrl, 'POST', '/dashboard/v1/sign-in', { body: { email, password } });
  if (answer.body.token) tokens.push(answer.body.token);
  return answer;
}

async function renew(token: string, baseUrl = url()) {
  const answer = await call<Session>(baseUrl, 'POST', '/dashboard/v1/session/renew', { token });
  if (answer.body.token) tokens.push(answer.body.token);
  return answer;
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { sid: string; gen?: number };
/** The session a token names (its `sid` claim). */
const sessionOf = (token: string) => claimsOf(token).sid;
/** Which of its session's tokens a token is (its `gen` claim). */
const generationOf = (token: string) => claimsOf(token).gen;

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(system.api.url, 'pro');
  tokens.push(owner.token);
  appId = (await createApp(system.api.url, owner.token)).appId;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('sign-up and sign-in', () => {
  it('creates a team on the Free plan whose creator is its Owner', async () => {
    const session = await call<{ member: { role: string }; team: { plan: string }; token: string }>(url(), 'POST', '/dashboard/v1/sign-up', {
      body: { team_name: 'Fresh', name: 'New Owner', email: 'fresh-owner@example.com', password: 'a long enough password' },
    });
    expect(session.status).toBe(201);
    expect(session.body.member.role).toBe('owner');
    expect(session.body.team.plan).toBe('free');
    expect(JSON.stringify(session.body)).not.toMatch(/password/);
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    const again = await call(url(), 'POST', '/dashboard/v1/sign-up', {
      body: { team_name: 'Copy', name: 'Copy', email: owner.email.toUpperCase(), password: 'another long password' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'email_taken' });
  });

  it('refuses a short password, naming the field', async () => {
    const short = await call(url(), 'POST', '/dashboard/v1/sign-up', { body: { team_name: 'T', name: 'N', email: 'short@example.com', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ error: 'validation_failed', field: '/password' });
  });

  it.each([
    ['team_name', { team_name: ' ', name: 'N' }],
    ['name', { team_name: 'T', name: '\u00a0' }],
  ])('refuses a %s that is white space alone, naming the field', async (field, names) => {
    const blank = await call(url(), 'POST', '/dashboard/v1/sign-up', { body: { ...names, email: `blank-${field}@example.com`, password: 'a long enough password' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: 'validation_failed', field: `/${field}`, message: expect.stringContaining('must not be blank') });
  });

  it('refuses an app name that is white space alone, naming the field', async () => {
    const blank = await call(url(), 'POST', '/dashboard/v1/apps', { token: owner.token, body: { name: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: 'validation_failed', field: '/name' });
  });

  it('signs in with the right password and answers the same error for a wrong password and an unknown email', async () => {
    expect((await signIn(owner.email, owner.password)).status).toBe(200);
    const wrong = await signIn(owner.email, 'not the password at all');
    const unknown = await signIn('nobody@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ error: 'invalid_credentials' });
  });

  it('refuses a missing, tampered or foreign session token', async () => {
    expect((await call(url(), 'GET', '/dashboard/v1/members')).status).toBe(401);
    const tampered = owner.token.slice(0, -4) + (owner.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const answer = await call(url(), 'GET', '/dashboard/v1/members', { token: tampered });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'invalid_session' });
  });

  it('answers 405 with the methods a path takes: on sign-in without a session, and on a member route with one', async () => {
    const signIn = await call(url(), 'GET', '/dashboard/v1/sign-in');
    expect({ status: signIn.status, error: signIn.body['error'], allow: signIn.headers.get('allow') }).toEqual({ status: 405, error: 'method_not_allowed', allow: 'POST' });
    const team = await call(url(), 'DELETE', '/dashboard/v1/team', { token: owner.token });
    expect({ status: team.status, allow: team.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, PATCH' });
  });
});

describe('roles', () => {
  it('lets a Member see the team but not the API keys', async () => {
    const { email, password } = await addMember('member');
    const member = (await signIn(email, password)).body.token;
    expect((await call(url(), 'GET', '/dashboard/v1/members', { token: member })).status).toBe(200);
    for (const [method, path] of [
      ['GET', `/dashboard/v1/apps/${appId}/api-key`],
      ['POST', `/dashboard/v1/apps/${appId}/api-key/revoke`],
      ['POST', `/dashboard/v1/apps/${appId}/api-key/rotate`],
      ['GET', `/dashboard/v1/apps/${appId}/api-key/audit`],
    ] as const) {
      const answer = await call(url(), method, path, { token: member });
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: 'insufficient_role' });
    }
    const patch = await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/api-key`, { token: member, body: { grant: ['tickets:write'] } });
    expect(patch.status).toBe(403);
  });

  it('lets an Admin manage keys but not roles or the plan', async () => {
    const { email, password } = await addMember('admin');
    const admin = (await signIn(email, password)).body.token;
    expect((await call(url(), 'GET', `/dashboard/v1/apps/${appId}/api-key`, { token: admin })).status).toBe(200);
    const plan = await call(url(), 'PATCH', '/dashboard/v1/team', { token: admin, body: { plan: 'starter' } });
    expect(plan.status).toBe(403);
    const members = await call<{ items: Array<{ id: string; role: string }> }>(url(), 'GET', '/dashboard/v1/members', { token: admin });
    const someone = members.body.items.find((item) => item.role === 'member')!;
    const role = await call(url(), 'PATCH', `/dashboard/v1/members/${someone.id}`, { token: admin, body: { role: 'admin' } });
    expect(role.status).toBe(403);
    const promote = await addMember('owner', admin);
    expect(promote.added.status).toBe(403);
  });

  it('takes a demotion into account at once, whatever the older session token says', async () => {
    const { added, email, password } = await addMember('admin');
    const adminToken = (await signIn(email, password)).body.token;
    await call(url(), 'PATCH', `/dashboard/v1/members/${added.body.id}`, { token: owner.token, body: { role: 'member' } });
    const answer = await call(url(), 'GET', `/dashboard/v1/apps/${appId}/api-key`, { token: adminToken });
    expect(answer.status).toBe(403);
  });

  it('never lets the last Owner be demoted or removed', async () => {
    const demote = await call(url(), 'PATCH', `/dashboard/v1/members/${owner.memberId}`, { token: owner.token, body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ error: 'last_owner' });
    const remove = await call(url(), 'DELETE', `/dashboard/v1/members/${owner.memberId}`, { token: owner.token });
    expect(remove.status).toBe(409);
  });

  it('lets an Owner step down once another Owner exists', async () => {
    const second = await addMember('owner');
    expect(second.added.status).toBe(201);
    const secondToken = (await signIn(second.email, second.password)).body.token;
    const demote = await call(url(), 'PATCH', `/dashboard/v1/members/${second.added.body.id}`, { token: owner.token, body: { role: 'admin' } });
    expect(demote.status).toBe(200);
    expect((await call(url(), 'GET', '/dashboard/v1/team', { token: secondToken })).status).toBe(200);
  });

  it('removes a member, whose session stops working', async () => {
    const { added, email, password } = await addMember('member');
    const token = (await signIn(email, password)).body.token;
    expect((await call(url(), 'DELETE', `/dashboard/v1/members/${added.body.id}`, { token: owner.token })).status).toBe(204);
    const answer = await call(url(), 'GET', '/dashboard/v1/members', { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'invalid_session' });
  });

  it('lets only the Owner change the plan', async () => {
    const changed = await call<{ plan: string }>(url(), 'PATCH', '/dashboard/v1/team', { token: owner.token, body: { plan: 'starter' } });
    expect(changed.status).toBe(200);
    expect(changed.body.plan).toBe('starter');
    const invalid = await call(url(), 'PATCH', '/dashboard/v1/team', { token: owner.token, body: { plan: 'gold' } });
    expect(invalid.status).toBe(400);
  });

  it('keeps one team from seeing or touching another team\'s apps', async () => {
    const other = await signUpTeam(url(), 'pro');
    const answer = await call(url(), 'GET', `/dashboard/v1/apps/${appId}/api-key`, { token: other.token });
    expect(answer.status).toBe(404);
    const revoke = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/api-key/revoke`, { token: other.token });
    expect(revoke.status).toBe(404);
  });
});

describe('sessions', () => {
  it('answers the session: when the token sent expires, and the member and team as they are now, so a changed role shows at once', async () => {
    const { added, email, password } = await addMember('admin');
    const signedIn = await signIn(email, password);
    await call(url(), 'PATCH', `/dashboard/v1/members/${added.body.id}`, { token: owner.token, body: { role: 'member' } });
    const session = await call<Session>(url(), 'GET', '/dashboard/v1/session', { token: signedIn.body.token });
    expect(session.status).toBe(200);
    expect(session.body).toEqual({
      expires_at: signedIn.body.expires_at,
      member: { ...signedIn.body.member, role: 'member' },
      team: signedIn.body.team,
    });
  });

  it('renews a token still valid: a token of the same session that works, expiring no earlier', async () => {
    const { email, password } = await addMember('member');
    const signedIn = await signIn(email, password);
    const renewed = await renew(signedIn.body.token);
    expect(renewed.status).toBe(200);
    expect(Object.keys(renewed.body).sort()).toEqual(['expires_at', 'member', 'team', 'token']);
    expect(sessionOf(renewed.body.token)).toBe(sessionOf(signedIn.body.token));
    expect(Date.parse(renewed.body.expires_at)).toBeGreaterThanOrEqual(Date.parse(signedIn.body.expires_at));
    expect(renewed.body.member).toEqual(signedIn.body.member);
    expect((await call(url(), 'GET', '/dashboard/v1/team', { token: renewed.body.token })).status).toBe(200);
  });

  it('refuses to renew a session past its absolute end, with 401 invalid_session', async () => {
    const { email, password } = await addMember('member');
    const { token } = (await signIn(email, password)).body;
    // The working day over: the session's absolute end has passed, though this token has not expired.
    await system.authority.prisma.memberSession.update({ where: { id: sessionOf(token) }, data: { latestEndAt: new Date(Date.now() - 1000) } });
    const refused = await call(url(), 'POST', '/dashboard/v1/session/renew', { token });
    expect({ status: refused.status, error: refused.body['error'] }).toEqual({ status: 401, error: 'invalid_session' });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="dashboard"/);
  });

  it('renews a replaced token within the grace with a token of the current generation, and other calls with the replaced token still work', async () => {
    const { email, password } = await addMember('member');
    const first = (await signIn(email, password)).body.token;
    const firstTab = (await renew(first)).body.token;
    // Another tab, holding the same token, renews it moments later.
    const otherTab = await renew(first);
    expect(otherTab.status).toBe(200);
    expect([generationOf(first), generationOf(firstTab), generationOf(otherTab.body.token)]).toEqual([0, 1, 1]);
    for (const token of [first, firstTab, otherTab.body.token]) {
      expect((await call(url(), 'GET', '/dashboard/v1/team', { token })).status).toBe(200);
    }
  });

  it('ends the session when a replaced token renews after the grace: every token of it gets 401 invalid_session, the newest included', async () => {
    const { email, password } = await addMember('member');
    const first = (await signIn(email, password)).body.token;
    const newest = (await renew(first)).body.token;
    // A minute has passed since the first token was replaced, longer than the 30 s grace.
    await system.authority.prisma.memberSession.update({ where: { id: sessionOf(first) }, data: { renewedAt: new Date(Date.now() - 60_000) } });
    const reused = await call(url(), 'POST', '/dashboard/v1/session/renew', { token: first });
    expect({ status: reused.status, error: reused.body['error'] }).toEqual({ status: 401, error: 'invalid_session' });
    for (const token of [first, newest]) {
      for (const [method, path] of [['GET', '/dashboard/v1/team'], ['POST', '/dashboard/v1/session/renew']] as const) {
        const answer = await call(url(), method, path, { token });
        expect({ method, path, status: answer.status, error: answer.body['error'] }).toEqual({ method, path, status: 401, error: 'invalid_session' });
      }
    }
  });

  it('answers two renewals at once with the same token, as two tabs send them, each with a working token of the same next generation', async () => {
    const { email, password } = await addMember('member');
    const first = (await signIn(email, password)).body.token;
    const [one, other] = await Promise.all([renew(first), renew(first)]);
    expect([one.status, other.status]).toEqual([200, 200]);
    expect([generationOf(one.body.token), generationOf(other.body.token)]).toEqual([1, 1]);
    for (const token of [one.body.token, other.body.token]) {
      expect((await call(url(), 'GET', '/dashboard/v1/team', { token })).status).toBe(200);
    }
  });

  it('ends the session at sign-out: every token of it gets 401 invalid_session on every dashboard route, on every api instance', async () => {
    const other = await system.startAnotherApi();
    const first = (await signIn(owner.email, owner.password)).body.token;
    const second = (await renew(first)).body.token;
    const routes = [
      ['GET', '/dashboard/v1/team'],
      ['GET', `/dashboard/v1/apps/${appId}/api-key`],
      ['GET', `/dashboard/v1/apps/${appId}/suggestions`],
      ['GET', `/dashboard/v1/apps/${appId}/webhooks`],
      ['GET', '/dashboard/v1/session'],
      ['POST', '/dashboard/v1/session/renew'],
    ] as const;
    // Both tokens work on both instances until then (a renewal's answer is a new token, not kept).
    for (const [method, path] of routes) {
      for (const [instance, token] of [[other.url, first], [url(), second]] as const) {
        expect({ instance, method, path, status: (await call(instance, method, path, { token })).status }).toEqual({ instance, method, path, status: 200 });
      }
    }
    const signedOut = await call(url(), 'POST', '/dashboard/v1/sign-out', { token: second });
    expect(signedOut.status).toBe(204);
    for (const [method, path] of [...routes, ['POST', '/dashboard/v1/sign-out'] as const]) {
      for (const [instance, token] of [[other.url, first], [url(), second]] as const) {
        const answer = await call(instance, method, path, { token });
        expect({ instance, method, path, status: answer.status, error: answer.body['error'] }).toEqual({ instance, method, path, status: 401, error: 'invalid_session' });
      }
    }
  });

  it("ends only the session signed out: the member's other sign-ins go on", async () => {
    const { email, password } = await addMember('member');
    const leaving = (await signIn(email, password)).body.token;
    const staying = (await signIn(email, password)).body.token;
    expect((await call(url(), 'POST', '/dashboard/v1/sign-out', { token: leaving })).status).toBe(204);
    expect((await call(url(), 'GET', '/dashboard/v1/team', { token: staying })).status).toBe(200);
    expect((await renew(staying)).status).toBe(200);
  });

  it('never writes a session token to a log line', () => {
    expect(tokens.length).toBeGreaterThan(10);
    const logs = system.logs.join('\n');
    for (const token of tokens) expect(logs).not.toContain(token);
  });
});

