import { createHash, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { erasedUserHash } from '@feedback/contracts';
import { eventually } from '@feedback/test-support';
import pg from 'pg';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { RELAY_LOCK } from '../../../services/api/src/outbox/relay.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
let key: string;
let publicKey: string;
const url = () => system.api.url;
const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>(url(), method, `/api/v1${path}`, { key, body, ...headers });
const widget = (path: string, body: unknown) => call<Record<string, unknown>>(url(), 'POST', `/widget/v1${path}`, { key: publicKey, body });

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  const app = await createApp(url(), owner.token, 'Privacy app');
  ({ appId, secretKey: key, publicKey } = app);
}, 60_000);

// A test that fails during its outage must not leave the next one without a broker.
afterEach(() => system?.brokerProxy.restore());

afterAll(async () => {
  await system?.stop();
});

describe('analytics', () => {
  it('needs analytics:read', async () => {
    const answer = await api('GET', '/analytics');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'analytics:read' });
  });

  it('counts suggestions and tickets by status, and survey responses with their score, over a period', async () => {
    await grantScopes(url(), owner.token, appId, ['analytics:read', 'suggestions:write', 'tickets:write', 'privacy:read', 'privacy:write']);
    const from = new Date(Date.now() - 1000).toISOString();
    const first = await widget('/suggestions', { title: 'One', user: { external_id: 'a' } });
    await widget('/suggestions', { title: 'Two', user: { external_id: 'b' } });
    await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/suggestions/${first.body['id']}`, { token: owner.token, body: { status: 'planned' } });
    await widget('/tickets', { subject: 'Help', body: 'x', user: { external_id: 'a' } });
    for (const score of [10, 9, 7, 3]) await widget('/survey-responses', { survey_id: 'nps', score, user: { external_id: `s${score}` } });
    await widget('/survey-responses', { survey_id: 'nps', user: { external_id: 'unscored' } });
    const to = new Date(Date.now() + 1000).toISOString();
    const answer = await api('GET', `/analytics?from=${from}&to=${to}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      period: { from, to },
      suggestions: { created: 2, by_status: { open: 1, under_review: 0, planned: 1, in_progress: 0, completed: 0, declined: 0 } },
      tickets: { created: 1, by_status: { open: 1, pending: 0, solved: 0, closed: 0 } },
      survey_responses: { count: 5, scored: 4, average_score: 7.25, nps: 25 },
    });
  });

  it('refuses a period that ends before it starts', async () => {
    const answer = await api('GET', '/analytics?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: '/from' });
  });

  it.each([
    ['from', 'from=2024-06-30T23:59:60Z&to=2024-07-02T00:00:00Z'],
    ['to', 'from=2024-06-01T00:00:00Z&to=2024-06-30T23:59:60Z'],
  ])('refuses a leap second in `%s`, which names no instant, with 400 validation_failed', async (field, query) => {
    const answer = await api('GET', `/analytics?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: `/${field}` });
  });
});

/** Resolves once exactly `sessions` sessions of this database wait for a lock. */
const untilWaitingForLocks = (client: pg.Client, sessions: number, what: string) =>
  eventually(
    async () => {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      return rows[0]!.n === sessions ? true : undefined;
    },
    { timeoutMs: 5000, what },
  );

describe('privacy', () => {
  const user = { external_id: 'erase-me', name: 'Eve' };

  it('exports everything held about one end user', async () => {
    const suggestion = await widget('/suggestions', { title: 'My idea', user });
    await widget(`/suggestions/${suggestion.body['id']}/comments`, { body: 'More detail', user });
    const ticket = await widget('/tickets', { subject: 'My account', body: 'my email is eve@example.com', user });
    await call(url(), 'POST', `/dashboard/v1/apps/${appId}/tickets/${ticket.body['id']}/messages`, { token: owner.token, body: { body: 'On it', visibility: 'public' } });
    await widget('/survey-responses', { survey_id: 'csat', score: 8, user });

    const exported = await api<Record<string, Array<Record<string, unknown>>>>('GET', '/privacy/users/erase-me');
    expect(exported.status).toBe(200);
    expect(exported.body['suggestions']?.map((item) => item['title'])).toEqual(['My idea']);
    expect(exported.body['comments']?.map((item) => item['body'])).toEqual(['More detail']);
    expect(exported.body['tickets']?.[0]).toMatchObject({ subject: 'My account', messages: [{ body: 'my email is eve@example.com' }, { body: 'On it' }] });
    expect(exported.body['survey_responses']?.map((item) => item['score'])).toEqual([8]);
  });

  it('erases everywhere: anonymises their suggestions, deletes the rest, withholds unpublished events, tells the worker; idempotently', async () => {
    await fetch(`${url()}/api/v1/suggestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': 'erase-key' },
      body: JSON.stringify({ title: 'Via API', author: user }),
    });
    // Made almost a retention ago: the tombstone that erasure leaves is kept a retention from the erasure.
    await system.api.prisma.idempotencyRecord.updateMany({ where: { key: 'erase-key' }, data: { createdAt: new Date(Date.now() - 23 * 3600_000) } });
    // Events about the user that cannot be published yet (broker unreachable) must never go out.
    system.brokerProxy.interrupt();
    const waiting = await widget('/suggestions', { title: 'Written during the outage', user });
    expect(waiting.status).toBe(201);
    // Someone else comments on one of the user's suggestions meanwhile: an event about a suggestion that stays.
    const mine = await api<{ data: Array<{ id: number; title: string }> }>('GET', '/suggestions?limit=100');
    const myIdea = mine.body.data.find((item) => item.title === 'My idea')!;
    expect((await widget(`/suggestions/${myIdea.id}/comments`, { body: 'Me too', user: { external_id: 'someone-else', name: 'Sam' } })).status).toBe(201);
    const erased = await api('DELETE', '/privacy/users/erase-me');
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ suggestions_anonymised: 3, comments_deleted: 1, tickets_deleted: 1, survey_responses_deleted: 1, events_anonymised: 1 });
    expect(erased.body['events_withheld']).toBeGreaterThanOrEqual(1);
    // It goes out, about the suggestion, with its author removed.
    const commented = await system.api.prisma.outboxEvent.findFirstOrThrow({ where: { eventType: 'suggestion.commented' }, orderBy: { position: 'desc' } });
    expect(commented.payload).toMatchObject({
      data: { suggestion_id: myIdea.id, comment: { body: 'Me too' }, author: { external_id: null, name: null }, sender: { type: 'app_user', external_id: 'someone-else' } },
    });
    expect(JSON.stringify(commented.payload)).not.toContain('erase-me');
    system.brokerProxy.restore();

    const exported = await api<Record<string, unknown[]>>('GET', '/privacy/users/erase-me');
    expect(exported.body).toMatchObject({ suggestions: [], comments: [], tickets: [], survey_responses: [] });
    // The request log names the route, never the path with the user's id: an erasure could not take it back out.
    const requestLines = system.logs.filter((line) => line.includes('"message":"request"'));
    expect(requestLines.some((line) => line.includes('/api/v1/privacy/users/:externalId'))).toBe(true);
    expect(requestLines.filter((line) => line.includes('erase-me'))).toEqual([]);
    const list = await api<{ data: Array<{ title: string; author: unknown }> }>('GET', '/suggestions?limit=100');
    expect(list.body.data.find((item) => item.title === 'My idea')?.author).toEqual({ external_id: null, name: null });
    expect(JSON.stringify(list.body)).not.toContain('Eve');

    // Nothing about the user stays in the outbox, published or not: not their id, name or texts.
    const stored = await system.api.prisma.$queryRaw<Array<{ n: bigint }>>`
      SELECT count(*) AS n FROM api.outbox_events
      WHERE payload::text LIKE '%erase-me%' OR payload::text LIKE '%Eve%' OR payload::text LIKE '%eve@example.com%' OR payload::text LIKE '%More detail%'`;
    expect(Number(stored[0]?.n)).toBe(0);
    // The stored answer is gone; a retry with its key is refused rather than run again.
    const tombstone = await system.api.prisma.idempotencyRecord.findFirstOrThrow({ where: { key: 'erase-key' } });
    expect(tombstone).toMatchObject({ requestHash: 'erased', responseStatus: null, responseBody: null });
    expect(Date.now() - tombstone.createdAt.getTime()).toBeLessThan(3600_000);
    const retried = await fetch(`${url()}/api/v1/suggestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': 'erase-key' },
      body: JSON.stringify({ title: 'Via API', author: user }),
    });
    expect(retried.status).toBe(410);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await retried.json()).toMatchObject({ error: 'user_erased' });
    expect((await api<Record<string, unknown[]>>('GET', '/privacy/users/erase-me')).body['suggestions']).toEqual([]);

    // Named by a keyed hash: a reader of the table cannot test guesses of the id with a plain SHA-256.
    const hash = erasedUserHash(Buffer.from(system.env['ERASURE_HASH_KEY']!, 'base64'), appId, 'erase-me');
    await eventually(() => system.worker.prisma.privacyErasure.findFirst({ where: { appId, userHash: hash } }).then((row) => row ?? undefined), {
      what: 'the worker to record the erasure',
      timeoutMs: 20_000,
    });
    expect(await system.worker.prisma.privacyErasure.count({ where: { userHash: createHash('sha256').update(`${appId}:erase-me`).digest('hex') } })).toBe(0);

    const again = await api('DELETE', '/privacy/users/erase-me');
    expect(again.body).toMatchObject({ suggestions_anonymised: 0, comments_deleted: 0, tickets_deleted: 0, survey_responses_deleted: 0, events_withheld: 0, events_anonymised: 0 });
  }, 60_000);

  it('waits for the events a batch is publishing, then treats them as published, without deadlocking with the batch', async () => {
    const user = 'late-user';
    const connect = async () => {
      const client = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
      await client.connect();
      return client;
    };
    const fence = await connect();
    const batch = await connect();
    let erasure: ReturnType<typeof api> | undefined;
    try {
      // Keeps the system's own relay off these events: its claims find its lock taken.
      await fence.query('BEGIN');
      await fence.query('SELECT pg_advisory_xact_lock($1)', [RELAY_LOCK]);
      const outboxed = async (eventType: string, data: unknown) =>
        (
          await batch.query<{ position: string }>('INSERT INTO api.outbox_events (event_id, event_type, payload) VALUES ($1, $2, $3) RETURNING position', [
            randomUUID(),
            eventType,
            { app: { id: appId }, data },
          ])
        ).rows[0]!.position;
      const about = await outboxed('suggestion.status_changed', {
        author: { external_id: user, name: 'Late' },
        sender: { type: 'member', name: 'Ada' },
        suggestion: { author: { external_id: user, name: 'Late' } },
      });
      const by = await outboxed('ticket.created', { sender: { type: 'app_user', external_id: user, name: 'Late' } });

      // A batch as the relay's claim makes it, stamping in position order: the first event...
      await batch.query('BEGIN');
      await batch.query('UPDATE api.outbox_events SET published_at = now() WHERE position = $1', [about]);
      erasure = api('DELETE', `/privacy/users/${user}`);
      await untilWaitingForLocks(fence, 1, 'the erasure to wait for the batch');
      // ...then the next, which the erasure must not be holding meanwhile.
      await batch.query('UPDATE api.outbox_events SET published_at = now() WHERE position = $1', [by]);
      await batch.query('COMMIT');

      const answer = await erasure;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ events_withheld: 0, events_anonymised: 0 });
      // Published, they are history that names the user: deleted.
      const left = await batch.query('SELECT count(*)::int AS n FROM api.outbox_events WHERE position = ANY ($1::bigint[])', [[about, by]]);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await batch.query('ROLLBACK').catch(() => undefined);
      await fence.query('ROLLBACK').catch(() => undefined);
      await Promise.allSettled([erasure]);
      await batch.end();
      await fence.end();
    }
  });

  /** Two suggestions, one by each user, each commented on by the other; their database ids. */
  async function mutualCommenters(first: string, second: string) {
    const ids: number[] = [];
    for (const [author, commenter] of [[first, second], [second, first]] as const) {
      const suggestion = await widget('/suggestions', { title: `Idea of ${author}`, user: { external_id: author, name: author } });
      expect((await widget(`/suggestions/${suggestion.body['id']}/comments`, { body: 'Agreed', user: { external_id: commenter, name: commenter } })).status).toBe(201);
      const stored = await system.api.prisma.suggestion.findFirstOrThrow({ where: { appId, authorExternalId: author }, select: { id: true } });
      ids.push(stored.id);
    }
    return ids;
  }


  it('erases two users who commented on each other\'s suggestions at the same moment, in turn, without a deadlock', async () => {
    const suggestions = await mutualCommenters('mutual-a', 'mutual-b');
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    let erasures: Array<ReturnType<typeof api>> = [];
    const deadlocks = async () => {
      // Counted when the backend that broke one reports its statistics, within a second or so of going idle.
      await holder.query('SELECT pg_stat_clear_snapshot()');
      return (await holder.query<{ n: string }>('SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n;
    };
    try {
      const deadlocksBefore = await deadlocks();
      // Both erasures wait on the two suggestions, then start together: each once took its own
      // user's suggestion first and then the other's, and one of them died in a deadlock (500).
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM api.suggestions WHERE id = ANY ($1::int[]) FOR UPDATE', [suggestions]);
      erasures = [api('DELETE', '/privacy/users/mutual-a'), api('DELETE', '/privacy/users/mutual-b')];
      await untilWaitingForLocks(holder, 2, 'both erasures to wait');
      await holder.query('COMMIT');
      for (const answer of await Promise.all(erasures)) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ suggestions_anonymised: 1, comments_deleted: 1 });
      }
      const counts = await system.api.prisma.suggestion.findMany({ where: { id: { in: suggestions } }, select: { commentCount: true, authorExternalId: true } });
      expect(counts).toEqual([
        { commentCount: 0, authorExternalId: null },
        { commentCount: 0, authorExternalId: null },
      ]);
      // They took turns: none was ended to break a deadlock and run again.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await deadlocks()).toBe(deadlocksBefore);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await Promise.allSettled(erasures);
      await holder.end();
    }
  });

  it('takes each of their comments off the count of the suggestion it was on, and shows the suggestion changed', async () => {
    const talker = { external_id: 'many-comments', name: 'Talker' };
    const busy = await widget('/suggestions', { title: 'Busy thread', user: { external_id: 'thread-owner', name: 'Owner' } });
    const quiet = await widget('/suggestions', { title: 'Quiet thread', user: { external_id: 'thread-owner', name: 'Owner' } });
    for (const [suggestion, who] of [[busy, talker], [busy, talker], [busy, { external_id: 'stays', name: 'Stays' }], [quiet, talker]] as const) {
      expect((await widget(`/suggestions/${suggestion.body['id']}/comments`, { body: 'A comment', user: who })).status).toBe(201);
    }
    const stored = (id: unknown) => system.api.prisma.suggestion.findUniqueOrThrow({ where: { id: Number(id) }, select: { commentCount: true, updatedAt: true } });
    const before = await stored(busy.body['id']);
    expect(before.commentCount).toBe(3);

    const erased = await api('DELETE', '/privacy/users/many-comments');
    expect(erased.body).toMatchObject({ comments_deleted: 3, suggestions_anonymised: 0 });
    const after = await stored(busy.body['id']);
    expect(after.commentCount).toBe(1);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    expect((await stored(quiet.body['id'])).commentCount).toBe(0);
  });

  it('runs again, and answers 200, when PostgreSQL ends it to break a deadlock with another transaction', async () => {
    const [theirs, other] = await mutualCommenters('deadlocked-a', 'deadlocked-b');
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    let erasure: ReturnType<typeof api> | undefined;
    try {
      // The other transaction waits longer before checking for a deadlock, so PostgreSQL ends the erasure's.
      await holder.query('BEGIN');
      await holder.query(`SET LOCAL deadlock_timeout = '20s'`);
      await holder.query('SELECT id FROM api.suggestions WHERE id = $1 FOR UPDATE', [other]);
      erasure = api('DELETE', '/privacy/users/deadlocked-a');
      await untilWaitingForLocks(holder, 1, 'the erasure to wait');
      // The erasure holds its user's suggestion and waits for the other; this now waits for theirs.
      await holder.query('UPDATE api.suggestions SET comment_count = comment_count WHERE id = $1', [theirs]);
      await holder.query('COMMIT');
      const answer = await erasure;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ suggestions_anonymised: 1, comments_deleted: 1 });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await Promise.allSettled([erasure]);
      await holder.end();
    }
  });

  it('needs privacy:read to export and privacy:write to erase', async () => {
    await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/api-key`, { token: owner.token, body: { remove: ['privacy:read', 'privacy:write'] } });
    expect((await api('GET', '/privacy/users/x')).body).toMatchObject({ required_scope: 'privacy:read' });
    expect((await api('DELETE', '/privacy/users/x')).body).toMatchObject({ required_scope: 'privacy:write' });
  });
});
