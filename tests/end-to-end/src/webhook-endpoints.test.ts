import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { RpcClient } from '@feedback/messaging';
import pg from 'pg';
import { eventually, untilSomeoneWaitsOn } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { connectRpcCaller, startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { SecretBox } from '../../../services/webhook-worker/src/endpoints/signing-secrets.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
const url = () => system.api.url;
/** Every signing secret the tests were shown, to look for in the logs at the end. */
const secretsShown: string[] = [];
const webhooks = async (method: string, path: string, body?: unknown, token = owner.token, app = appId) => {
  const answer = await call<Record<string, unknown>>(url(), method, `/dashboard/v1/apps/${app}/webhooks${path}`, { token, body });
  if (typeof answer.body?.['signing_secret'] === 'string') secretsShown.push(answer.body['signing_secret']);
  return answer;
};

/** Resolves once the worker keeps `plan` for the team: it hears plan changes as events. */
async function workerKeeps(teamId: string, plan: string) {
  await eventually(async () => ((await system.worker.prisma.teamPlan.findUnique({ where: { teamId } }))?.plan === plan ? true : undefined), {
    what: `the worker keeping the ${plan} plan`,
    timeoutMs: 10_000,
  });
}

/** What the dashboard sends the worker as the owner: the authority's answer for this member and app, with its grant. */
async function grantedOwner(token: string, app: number) {
  const rpc = await connectRpcCaller(system, { name: 'authorising', timeoutMs: 5000 });
  try {
    const granted = await rpc.call('authority.authorizeWebhookManagement', { session: token, app_id: app });
    return { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
  } finally {
    await rpc.close();
  }
}
const endpoint = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: 'https://localhost:9443/hooks',
  events: ['suggestion.created', 'ticket.replied'],
  ...extra,
});

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'starter');
  appId = (await createApp(url(), owner.token)).appId;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('webhook endpoints', () => {
  // Each test makes its own; what one leaves behind would count against the next's Starter limit.
  afterEach(async () => {
    await system.worker.prisma.webhookEndpoint.deleteMany({ where: { appId } });
  });

  /** A new endpoint of the app, and the secret its creation showed. */
  const createdEndpoint = async (name = 'Main') => {
    const created = await webhooks('POST', '', endpoint(name));
    expect(created.status).toBe(201);
    return { endpointId: (created.body['endpoint'] as { id: string }).id, firstSecret: created.body['signing_secret'] as string };
  };

  it('are created by an Owner, with a whsec_ signing secret shown once and stored sealed', async () => {
    const created = await webhooks('POST', '', endpoint('Main'));
    expect(created.status).toBe(201);
    const firstSecret = created.body['signing_secret'] as string;
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const endpointId = (created.body['endpoint'] as { id: string }).id;
    const listed = await webhooks('GET', '');
    expect(JSON.stringify(listed.body)).not.toContain(firstSecret);
    expect(listed.body['items']).toEqual([expect.objectContaining({ id: endpointId, name: 'Main', events: ['suggestion.created', 'ticket.replied'] })]);
    // No cache along the way keeps an answer that shows a secret.
    expect(created.headers.get('cache-control')).toBe('no-store');
    const stored = await system.worker.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect(stored.secretEncrypted).not.toContain('whsec_');
    expect(stored.secretEncrypted).not.toContain(firstSecret.slice(6));
  });

  it('rotate their secret: a new one, shown once', async () => {
    const { endpointId, firstSecret } = await createdEndpoint();
    const rotated = await webhooks('POST', `/${endpointId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body['signing_secret']).toMatch(/^whsec_/);
    expect(rotated.body['signing_secret']).not.toBe(firstSecret);
  });

  it('rotate once of two rotations at the same moment: the other is told 409, and the secret shown is the one in use', async () => {
    const { endpointId } = await createdEndpoint();
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    try {
      // Both rotations read the endpoint, then wait for its row.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhooks.webhook_endpoints WHERE id = $1 FOR UPDATE', [endpointId]);
      const presses = [webhooks('POST', `/${endpointId}/rotate-secret`), webhooks('POST', `/${endpointId}/rotate-secret`)];
      await eventually(async () => {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        // The second waits behind the first, not directly on the holder.
        const { rows } = await holder.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhook_endpoints%'",
        );
        return rows[0]!.n >= 2 ? true : undefined;
      }, { what: 'both rotations waiting' });
      await holder.query('COMMIT');
      const answers = await Promise.all(presses);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body).toMatchObject({ error: 'secret_rotated_meanwhile' });
      const shown = answers.find((answer) => answer.status === 200)!.body['signing_secret'];
      const stored = await system.worker.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
      expect(new SecretBox(system.env['SIGNING_SECRET_ENCRYPTION_KEY']!).open(stored.secretEncrypted, endpointId)).toBe(shown);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });

  it('rotate though the secret was sealed again (after a key change) while the rotation waited: that is no rotation', async () => {
    const { endpointId } = await createdEndpoint();
    const box = new SecretBox(system.env['SIGNING_SECRET_ENCRYPTION_KEY']!);
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const { rows } = await holder.query<{ secret_encrypted: string }>('SELECT secret_encrypted FROM webhooks.webhook_endpoints WHERE id = $1 FOR UPDATE', [endpointId]);
      const rotation = webhooks('POST', `/${endpointId}/rotate-secret`);
      await untilSomeoneWaitsOn(holder, 'the rotation to wait for the row');
      // What the re-sealing does: the same secret, sealed anew (a new IV, so other text).
      await holder.query('UPDATE webhooks.webhook_endpoints SET secret_encrypted = $2 WHERE id = $1', [endpointId, box.seal(box.open(rows[0]!.secret_encrypted, endpointId), endpointId)]);
      await holder.query('COMMIT');
      const answer = await rotation;
      expect(answer.status).toBe(200);
      const stored = await system.worker.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
      expect(box.open(stored.secretEncrypted, endpointId)).toBe(answer.body['signing_secret']);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });

  it('change name, URL or events, are viewed one at a time, and are deleted', async () => {
    const { endpointId } = await createdEndpoint();
    const changed = await webhooks('PATCH', `/${endpointId}`, { name: 'Renamed', events: ['ticket.created'] });
    expect(changed.body).toMatchObject({ name: 'Renamed', events: ['ticket.created'] });
    const viewed = await webhooks('GET', `/${endpointId}`);
    expect(viewed.status).toBe(200);
    expect(viewed.body).toEqual(changed.body);
    expect(JSON.stringify(viewed.body)).not.toContain('whsec_');
    // Stored as a URL every answer can carry: before, a stray space was stored as typed and
    // every later list of the app's endpoints failed to describe it.
    const spaced = await webhooks('PATCH', `/${endpointId}`, { url: ' https://LOCALHOST:9443/new hooks|v2 ' });
    expect(spaced.status).toBe(200);
    expect(spaced.body['url']).toBe('https://localhost:9443/new%20hooks%7Cv2');
    expect((await webhooks('GET', '')).status).toBe(200);
    const unsafe = await webhooks('PATCH', `/${endpointId}`, { url: 'https://10.0.0.5/hook' });
    expect(unsafe.status).toBe(400);
    expect(unsafe.body).toMatchObject({ error: 'unsafe_url' });
    expect((await webhooks('DELETE', `/${endpointId}`)).status).toBe(204);
    expect((await webhooks('DELETE', `/${endpointId}`)).status).toBe(404);
    expect((await webhooks('GET', `/${endpointId}`)).status).toBe(404);
  });

  it('are renamed when the edit form sends back the URL as shown, though its name does not resolve at that moment', async () => {
    const created = await webhooks('POST', '', endpoint('Flaky DNS'));
    const id = (created.body['endpoint'] as { id: string }).id;
    // Saved while it resolved; its DNS is away now.
    const away = 'https://no-such-host.invalid/hook';
    await system.worker.prisma.webhookEndpoint.update({ where: { id }, data: { url: away } });
    const renamed = await webhooks('PATCH', `/${id}`, { name: 'Renamed', url: away });
    expect({ status: renamed.status, name: renamed.body['name'], url: renamed.body['url'] }).toEqual({ status: 200, name: 'Renamed', url: away });
    // A changed URL is checked as on creation.
    const moved = await webhooks('PATCH', `/${id}`, { url: 'https://no-such-host.invalid/other' });
    expect({ status: moved.status, error: moved.body['error'] }).toEqual({ status: 400, error: 'unsafe_url' });
    expect((await webhooks('DELETE', `/${id}`)).status).toBe(204);
  });

  it.each([
    ['http://localhost:9443/hooks', 'https'],
    ['https://127.0.0.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://[::ffff:10.0.0.1]/hook', 'private'],
    ['https://[::127.0.0.1]/hook', 'private'],
    ['https://2130706433/hook', 'private'],
    ['https://intranet/hook', 'public host'],
    ['https://no-such-host.invalid/hook', 'does not resolve to a public address'],
  ])('are refused at save time with a clear error: %s', async (target, reason) => {
    const refused = await webhooks('POST', '', endpoint('Bad', { url: target }));
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toBe('unsafe_url');
    expect(String(refused.body['message'])).toContain(reason);
  });

  it('are refused with a field name for a name that is white space alone, on creation and on change', async () => {
    const refused = await webhooks('POST', '', endpoint('   '));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'validation_failed', field: '/name', message: expect.stringContaining('must not be blank') });
    const created = await webhooks('POST', '', endpoint('Named'));
    expect(created.status).toBe(201);
    const id = (created.body['endpoint'] as { id: string }).id;
    const renamed = await webhooks('PATCH', `/${id}`, { name: '\t' });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toMatchObject({ error: 'validation_failed', field: '/name' });
    await webhooks('DELETE', `/${id}`);
  });

  it('are refused with a field name for an unknown event', async () => {
    const refused = await webhooks('POST', '', endpoint('Bad', { events: ['suggestion.deleted'] }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'validation_failed' });
  });

  it('are managed by Owners and Admins only: an Admin does everything an Owner does, a Member nothing', async () => {
    const memberToken = async (role: 'admin' | 'member') => {
      const email = `${role}-${randomUUID()}@example.com`;
      await call(url(), 'POST', '/dashboard/v1/members', { token: owner.token, body: { name: role, email, password: 'a long enough password', role } });
      return (await call<{ token: string }>(url(), 'POST', '/dashboard/v1/sign-in', { body: { email, password: 'a long enough password' } })).body.token;
    };
    const admin = await memberToken('admin');
    const member = await memberToken('member');

    const created = await webhooks('POST', '', endpoint('By an Admin'), admin);
    expect(created.status).toBe(201);
    const id = (created.body['endpoint'] as { id: string }).id;
    expect((await webhooks('GET', '', undefined, admin)).status).toBe(200);
    expect((await webhooks('GET', `/${id}`, undefined, admin)).status).toBe(200);
    expect((await webhooks('PATCH', `/${id}`, { name: 'Renamed by an Admin' }, admin)).status).toBe(200);
    expect((await webhooks('POST', `/${id}/rotate-secret`, undefined, admin)).status).toBe(200);
    const test = await webhooks('POST', `/${id}/test`, undefined, admin);
    expect(test.status).toBe(202);
    const deliveryId = test.body['id'] as string;
    expect((await webhooks('GET', `/${id}/deliveries`, undefined, admin)).status).toBe(200);
    expect((await webhooks('GET', `/${id}/deliveries/${deliveryId}`, undefined, admin)).status).toBe(200);

    // A Member is refused on every route, for who they are, whether or not what they name exists
    // and before anything they sent is looked at.
    for (const [method, path, body] of [
      ['GET', ''],
      ['POST', '', endpoint('No')],
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { name: 'No' }],
      ['PATCH', `/${randomUUID()}`, ['not', 'an', 'object']],
      ['POST', `/${id}/rotate-secret`],
      ['POST', `/${id}/test`],
      ['GET', `/${id}/deliveries`],
      ['GET', `/${randomUUID()}/deliveries?limit=1000&before=x`],
      ['GET', `/${id}/deliveries/${deliveryId}`],
      ['POST', `/${id}/deliveries/${deliveryId}/redeliver`],
      ['GET', '/not-an-id'],
      ['DELETE', `/${id}`],
    ] as const) {
      const answer = await webhooks(method, path, body, member);
      expect({ method, path, status: answer.status, body: answer.body }).toMatchObject({ status: 403, body: { error: 'insufficient_role' } });
    }
    expect((await webhooks('GET', `/${id}`)).body).toMatchObject({ name: 'Renamed by an Admin' });

    expect((await webhooks('DELETE', `/${id}`, undefined, admin)).status).toBe(204);
    expect((await webhooks('GET', `/${id}`, undefined, admin)).status).toBe(404);
  });

  it('answer 404 for an id that is not one, as for one no endpoint or delivery has', async () => {
    for (const path of ['/not-an-id', '/not-an-id/deliveries', `/${randomUUID()}/deliveries/not-an-id`, '/1']) {
      const answer = await webhooks('GET', path);
      expect({ path, status: answer.status, error: answer.body['error'] }).toEqual({ path, status: 404, error: 'not_found' });
    }
    expect((await webhooks('DELETE', '/not-an-id')).status).toBe(404);
  });

  it('refuse a body that is not a JSON object as a whole', async () => {
    const refused = await webhooks('POST', '', [endpoint('In an array')]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'validation_failed', message: 'The body must be a JSON object.', field: '' });
  });

  it('answer 405 with the methods a path takes, on every webhook path', async () => {
    const id = randomUUID();
    const cases: Array<[string, string, string]> = [
      ['PUT', '', 'GET, POST'],
      ['POST', `/${id}`, 'GET, PATCH, DELETE'],
      ['GET', `/${id}/rotate-secret`, 'POST'],
      ['GET', `/${id}/test`, 'POST'],
      ['DELETE', `/${id}/deliveries`, 'GET'],
      ['PATCH', `/${id}/deliveries/${id}`, 'GET'],
      ['GET', `/${id}/deliveries/${id}/redeliver`, 'POST'],
    ];
    for (const [method, path, allowed] of cases) {
      const answer = await webhooks(method, path);
      expect({ method, path, status: answer.status, error: answer.body['error'], allow: answer.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        error: 'method_not_allowed',
        allow: allowed,
      });
    }
  });
});

describe('another team or app', () => {
  it('is told 404 for every operation on an endpoint or delivery that is not its own, and changes nothing', async () => {
    const created = await webhooks('POST', '', endpoint('Private'));
    const id = (created.body['endpoint'] as { id: string }).id;
    const sealed = async () => (await system.worker.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).secretEncrypted;
    const before = await sealed();
    const sent = await webhooks('POST', `/${id}/test`);
    expect(sent.status).toBe(202);
    const deliveryId = String(sent.body['id']);
    const sibling = (await webhooks('POST', '', endpoint('Sibling'))).body['endpoint'] as { id: string };
    const otherApp = (await createApp(url(), owner.token, 'Other app')).appId;
    const otherTeam = await signUpTeam(url(), 'pro');
    const otherTeamsApp = (await createApp(url(), otherTeam.token, 'Theirs')).appId;

    const operations: Array<[string, string, unknown?]> = [
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { name: 'Taken over' }],
      ['POST', `/${id}/rotate-secret`],
      ['POST', `/${id}/test`],
      ['GET', `/${id}/deliveries`],
      ['GET', `/${id}/deliveries/${deliveryId}`],
      ['POST', `/${id}/deliveries/${deliveryId}/redeliver`],
      ['DELETE', `/${id}`],
    ];
    const callers: Array<[string, string, number]> = [
      ['another team, through its own app', otherTeam.token, otherTeamsApp],
      ['another team, through this app', otherTeam.token, appId],
      ['the same team, through another app', owner.token, otherApp],
    ];
    for (const [who, token, app] of callers) {
      for (const [method, path, body] of operations) {
        const answer = await webhooks(method, path, body, token, app);
        expect({ who, method, path, status: answer.status, error: answer.body['error'] }).toEqual({ who, method, path, status: 404, error: 'not_found' });
      }
    }
    // A delivery of one endpoint, asked for under another of the same app.
    for (const [method, path] of [['GET', `/${sibling.id}/deliveries/${deliveryId}`], ['POST', `/${sibling.id}/deliveries/${deliveryId}/redeliver`]] as const) {
      expect((await webhooks(method, path)).status).toBe(404);
    }
    const after = await webhooks('GET', `/${id}`);
    expect(after.body).toMatchObject({ id, name: 'Private' });
    expect(await sealed()).toBe(before);
    expect(await system.worker.prisma.delivery.count({ where: { endpointId: id } })).toBe(1);
    await webhooks('DELETE', `/${id}`);
    await webhooks('DELETE', `/${sibling.id}`);
  });
});

describe('the delivery history', () => {
  it('never answers a key back, even one pasted as the name of a query parameter', async () => {
    const pasted = `sk_live_${'A1b2'.repeat(8)}`;
    const answer = await webhooks('GET', `/${randomUUID()}/deliveries?${pasted}=1`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed' });
    expect(JSON.stringify(answer.body)).not.toContain(pasted.slice('sk_live_'.length));
    // Or as a field of a body the command's contract refuses.
    const created = await webhooks('POST', '', { ...endpoint('Pasted'), [pasted]: 1 });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ error: 'validation_failed' });
    expect(JSON.stringify(created.body)).not.toContain(pasted.slice('sk_live_'.length));
  });
});

describe('the endpoint list', () => {
  it('pages oldest first, and goes on from where a page ended though its last endpoint is deleted', async () => {
    const team = await signUpTeam(url(), 'pro');
    const app = (await createApp(url(), team.token, 'Many')).appId;
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) ids.push(((await webhooks('POST', '', endpoint(`E${n}`), team.token, app)).body['endpoint'] as { id: string }).id);
    // The last three made in one millisecond: the id orders them, and paging neither skips nor repeats one.
    await system.worker.prisma.webhookEndpoint.updateMany({ where: { id: { in: ids.slice(2) } }, data: { createdAt: new Date(Date.now() + 60_000) } });
    const expected = [...ids.slice(0, 2), ...ids.slice(2).sort()];
    type Page = { items: Array<{ id: string }>; next_cursor: string | null };
    const page = async (query: string) => {
      const answer = await webhooks('GET', query, undefined, team.token, app);
      expect(answer.status).toBe(200);
      return answer.body as unknown as Page;
    };
    const first = await page('?limit=2');
    expect(first.items.map((item) => item.id)).toEqual(expected.slice(0, 2));
    const second = await page(`?limit=2&cursor=${first.next_cursor}`);
    expect(second.items.map((item) => item.id)).toEqual(expected.slice(2, 4));
    expect((await webhooks('DELETE', `/${expected[3]}`, undefined, team.token, app)).status).toBe(204);
    const third = await page(`?limit=2&cursor=${second.next_cursor}`);
    expect(third).toEqual({ items: [expect.objectContaining({ id: expected[4] })], next_cursor: null });
    // 50 to a page unless asked otherwise.
    expect((await page('')).items.map((item) => item.id)).toEqual(expected.filter((id) => id !== expected[3]));

    // An api from before the list paged (the worker upgraded first) asks with no limit: every
    // endpoint, and no `next_cursor`, which its contract would refuse.
    const rpc = await connectRpcCaller(system, { name: 'api-before-paging', timeoutMs: 5000 });
    try {
      const answer = await rpc.call('webhook-worker.listEndpoints', { owner: await grantedOwner(team.token, app) });
      expect(Object.keys(answer)).toEqual(['items']);
      expect(answer.items).toHaveLength(4);
    } finally {
      await rpc.close();
    }
  });

  it('refuses a cursor it did not give for this app, and a query it does not take', async () => {
    const team = await signUpTeam(url(), 'pro');
    const first = (await createApp(url(), team.token, 'First')).appId;
    const second = (await createApp(url(), team.token, 'Second')).appId;
    for (const name of ['A', 'B']) expect((await webhooks('POST', '', endpoint(name), team.token, first)).status).toBe(201);
    const cursor = ((await webhooks('GET', '?limit=1', undefined, team.token, first)).body['next_cursor']) as string;
    expect(cursor).toEqual(expect.any(String));
    const refusals = {
      otherApp: await webhooks('GET', `?cursor=${cursor}`, undefined, team.token, second),
      madeUp: await webhooks('GET', '?cursor=bm90LWEtY3Vyc29y', undefined, team.token, first),
      limit: await webhooks('GET', '?limit=0', undefined, team.token, first),
      unknown: await webhooks('GET', '?before=2026-01-01', undefined, team.token, first),
    };
    expect(Object.fromEntries(Object.entries(refusals).map(([name, answer]) => [name, [answer.status, answer.body['error']]]))).toEqual({
      otherApp: [400, 'invalid_cursor'],
      madeUp: [400, 'invalid_cursor'],
      limit: [400, 'validation_failed'],
      unknown: [400, 'validation_failed'],
    });
  });
});

describe('plan limits', () => {
  it('Starter: at most 3 endpoints, enforced atomically under concurrent creation', async () => {
    const team = await signUpTeam(url(), 'starter');
    const app = (await createApp(url(), team.token, 'Limits')).appId;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => webhooks('POST', '', endpoint(`E${n}`), team.token, app)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => answer.body['error'])).toEqual(['plan_limit_reached', 'plan_limit_reached', 'plan_limit_reached']);
  });

  it('Starter: the three are counted across the team\'s apps', async () => {
    const team = await signUpTeam(url(), 'starter');
    const first = (await createApp(url(), team.token, 'First')).appId;
    const second = (await createApp(url(), team.token, 'Second')).appId;
    expect((await webhooks('POST', '', endpoint('A1'), team.token, first)).status).toBe(201);
    expect((await webhooks('POST', '', endpoint('A2'), team.token, first)).status).toBe(201);
    expect((await webhooks('POST', '', endpoint('B1'), team.token, second)).status).toBe(201);
    for (const app of [first, second]) {
      const refused = await webhooks('POST', '', endpoint('Fourth'), team.token, app);
      expect({ app, status: refused.status, error: refused.body['error'] }).toEqual({ app, status: 403, error: 'plan_limit_reached' });
    }
  });

  it('Free: none, said before anything about the URL', async () => {
    const team = await signUpTeam(url(), 'free');
    const app = (await createApp(url(), team.token, 'Free')).appId;
    const refused = await webhooks('POST', '', endpoint('E'), team.token, app);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'plan_limit_reached' });
    const unsafe = await webhooks('POST', '', endpoint('E', { url: 'http://169.254.169.254/' }), team.token, app);
    expect(unsafe.body).toMatchObject({ error: 'plan_limit_reached' });
  });

  it('Pro: no limit', async () => {
    const team = await signUpTeam(url(), 'pro');
    const app = (await createApp(url(), team.token, 'Pro')).appId;
    for (let n = 0; n < 5; n += 1) expect((await webhooks('POST', '', endpoint(`E${n}`), team.token, app)).status).toBe(201);
  });

  it('refuses a creation authorised on a plan lowered since, once the worker has heard the lowering', async () => {
    const team = await signUpTeam(url(), 'pro');
    const app = (await createApp(url(), team.token, 'Stale')).appId;
    const authorised = await grantedOwner(team.token, app);
    expect((await call(url(), 'PATCH', '/dashboard/v1/team', { token: team.token, body: { plan: 'free' } })).status).toBe(200);
    await workerKeeps(team.teamId, 'free');
    // A creation the dashboard authorised a moment before, on Pro, reaches the worker only now.
    const rpc = await connectRpcCaller(system, { name: 'stale-creation', timeoutMs: 5000 });
    try {
      const late = rpc.call('webhook-worker.createEndpoint', { owner: authorised, name: 'Late', url: 'https://localhost:9443/hooks', events: ['ticket.created'] });
      await expect(late).rejects.toMatchObject({ code: 'plan_limit_reached' });
    } finally {
      await rpc.close();
    }
    expect((await webhooks('GET', '', undefined, team.token, app)).body['items']).toEqual([]);
  });

  it.each([
    { from: 'starter', to: 'pro', existing: 3, name: 'Fourth' },
    { from: 'free', to: 'starter', existing: 0, name: 'First' },
  ] as const)('takes a creation authorised on $from with $existing endpoints when the team has moved to $to since', async ({ from, to, existing, name }) => {
    const team = await signUpTeam(url(), from);
    const app = (await createApp(url(), team.token, `Upgraded from ${from}`)).appId;
    for (let n = 0; n < existing; n += 1) expect((await webhooks('POST', '', endpoint(`E${n}`), team.token, app)).status).toBe(201);
    const authorised = await grantedOwner(team.token, app);
    expect((await call(url(), 'PATCH', '/dashboard/v1/team', { token: team.token, body: { plan: to } })).status).toBe(200);
    await workerKeeps(team.teamId, to);
    // A creation the dashboard authorised a moment before, on the plan before, reaches the worker only now.
    const rpc = await connectRpcCaller(system, { name: `upgraded-from-${from}`, timeoutMs: 5000 });
    try {
      const created = await rpc.call('webhook-worker.createEndpoint', { owner: authorised, name, url: 'https://localhost:9443/hooks', events: ['ticket.created'] });
      expect(created.endpoint.name).toBe(name);
    } finally {
      await rpc.close();
    }
  });

  it('refuses a creation that would wait long for another change to the team\'s endpoints, rather than finish after the dashboard gave up', async () => {
    const team = await signUpTeam(url(), 'pro');
    const app = (await createApp(url(), team.token, 'Busy')).appId;
    const teamId = (await call<{ id: string }>(url(), 'GET', '/dashboard/v1/team', { token: team.token })).body.id;
    // Another change to this team's endpoints holds their lock.
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext($1))`, [`endpoints:${teamId}`]);
      const refused = await webhooks('POST', '', endpoint('Waiting'), team.token, app);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: 'service_unavailable' });
    } finally {
      await holder.end();
    }
    expect((await webhooks('GET', '', undefined, team.token, app)).body['items']).toEqual([]);
    expect((await webhooks('POST', '', endpoint('Now'), team.token, app)).status).toBe(201);
  });

  describe('a creation or rotation still running when its caller gives up', () => {
    let impatient: RpcClient;
    let holder: pg.Client;

    beforeAll(async () => {
      // A dashboard that waits a second for the worker (its own 2 s wait for the team's lock outlasts it).
      impatient = await connectRpcCaller(system, { name: 'impatient-dashboard', timeoutMs: 1000 });
    });

    beforeEach(async () => {
      holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
      await holder.connect();
    });

    afterEach(async () => {
      await holder.end();
    });

    afterAll(async () => {
      await impatient?.close();
    });

    it('is not committed: no endpoint whose secret nobody saw, and no second one when the member presses again', async () => {
      const team = await signUpTeam(url(), 'pro');
      const app = (await createApp(url(), team.token, 'Impatient')).appId;
      const teamId = (await call<{ id: string }>(url(), 'GET', '/dashboard/v1/team', { token: team.token })).body.id;
      await holder.query(`SELECT pg_advisory_lock(hashtext($1))`, [`endpoints:${teamId}`]);
      const late = impatient.call('webhook-worker.createEndpoint', { owner: await grantedOwner(team.token, app), name: 'Late', url: 'https://localhost:9443/hooks', events: ['ticket.created'] });
      await untilSomeoneWaitsOn(holder, 'the worker to wait for the lock');
      await expect(late).rejects.toMatchObject({ code: 'rpc_timeout' });
      // Released within the worker's own 2 s wait for the lock: the creation goes on, past its caller.
      await holder.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`endpoints:${teamId}`]);
      // Pressed again: it waits for the lock behind the late one, so that one has ended by now.
      expect((await webhooks('POST', '', endpoint('Again'), team.token, app)).status).toBe(201);
      const items = (await webhooks('GET', '', undefined, team.token, app)).body['items'] as Array<{ name: string }>;
      expect(items.map((item) => item.name)).toEqual(['Again']);
    });

    it('is not committed: the endpoint keeps signing with the secret its receiver has', async () => {
      const created = await webhooks('POST', '', endpoint('Signing'));
      const id = (created.body['endpoint'] as { id: string }).id;
      const sealed = async () => (await system.worker.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).secretEncrypted;
      const before = await sealed();
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhooks.webhook_endpoints WHERE id = $1 FOR UPDATE', [id]);
      const late = impatient.call('webhook-worker.rotateEndpointSecret', { owner: await grantedOwner(owner.token, appId), endpoint_id: id });
      await untilSomeoneWaitsOn(holder, 'the worker to wait for the lock');
      await expect(late).rejects.toMatchObject({ code: 'rpc_timeout' });
      await holder.query('COMMIT');
      // A change after it waits for the row behind the late rotation, so that one has ended by now.
      expect((await webhooks('PATCH', `/${id}`, { name: 'Still signing' })).status).toBe(200);
      expect(await sealed()).toBe(before);
      // Pressed again, with a caller that waits: rotated.
      const rotated = await webhooks('POST', `/${id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(await sealed()).not.toBe(before);
      await webhooks('DELETE', `/${id}`);
    });
  });

  it('answer 404, not a failure, to a change, rotation or deletion that finds the endpoint deleted since it was looked up', async () => {
    const team = await signUpTeam(url(), 'pro');
    const app = (await createApp(url(), team.token, 'Racing')).appId;
    const id = String(((await webhooks('POST', '', endpoint('Racing'), team.token, app)).body['endpoint'] as { id: string }).id);
    // Another transaction holds the endpoint's row, so the requests below look it up and then
    // wait to write it; released, one deletion goes first and the others find the row gone
    // (which was a 500 for the second deletion).
    const holder = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhooks.webhook_endpoints WHERE id = $1 FOR UPDATE', [id]);
      const answers = Promise.all([
        webhooks('DELETE', `/${id}`, undefined, team.token, app),
        webhooks('DELETE', `/${id}`, undefined, team.token, app),
        webhooks('PATCH', `/${id}`, { name: 'Renamed' }, team.token, app),
        webhooks('POST', `/${id}/rotate-secret`, undefined, team.token, app),
      ]);
      await untilSomeoneWaitsOn(holder, 'a request waiting for the row');
      // The others queue behind the first writer out of PostgreSQL's sight; a moment lets a
      // request that was slow to arrive look the row up too before it is released. (Before the
      // fix this run gave 204, 500, 500, 500.)
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('COMMIT');
      const statuses = (await answers).map((answer) => answer.status);
      expect(statuses.filter((status) => status === 204)).toHaveLength(1);
      // The change and the rotation may go before the deletion (200) or after it (404).
      expect(statuses.every((status) => [200, 204, 404].includes(status))).toBe(true);
      expect(statuses.filter((status) => status === 404).length).toBeGreaterThanOrEqual(1);
    } finally {
      await holder.end();
    }
    expect((await webhooks('GET', `/${id}`, undefined, team.token, app)).status).toBe(404);
  });

  it('a lower plan applies at once: the worker pauses the newest endpoints beyond it, and resumes them as room returns', async () => {
    const team = await signUpTeam(url(), 'pro');
    // Counted across the team's apps.
    const apps = [(await createApp(url(), team.token, 'First')).appId, (await createApp(url(), team.token, 'Second')).appId];
    const ids: string[] = [];
    for (let n = 0; n < 4; n += 1) {
      const created = await webhooks('POST', '', endpoint(`E${n}`), team.token, apps[n % 2]);
      expect(created.status).toBe(201);
      ids.push(String((created.body['endpoint'] as { id: string }).id));
    }
    const changePlan = (plan: string) => call<Record<string, unknown>>(url(), 'PATCH', '/dashboard/v1/team', { token: team.token, body: { plan } });
    /** Why each endpoint is paused, oldest first; null while it is not. */
    const pauses = async (which = ids) =>
      Promise.all(which.map(async (id) => {
        const read = await webhooks('GET', `/${id}`, undefined, team.token, apps[ids.indexOf(id) % 2]);
        return (read.body['pause'] as { reason: string } | null)?.reason ?? null;
      }));
    const settlesAt = async (expected: Array<string | null>, which = ids) => {
      await eventually(async () => (JSON.stringify(await pauses(which)) === JSON.stringify(expected) ? true : undefined), { what: `pauses ${JSON.stringify(expected)}`, timeoutMs: 10_000 });
    };

    expect((await changePlan('starter')).status).toBe(200);
    expect((await call<{ plan: string }>(url(), 'GET', '/dashboard/v1/team', { token: team.token })).body.plan).toBe('starter');
    await settlesAt([null, null, null, 'plan']);
    // The team picks what stays by deleting: the one the plan paused is not resumed by hand, and no fifth is made.
    const resumed = await webhooks('POST', `/${ids[3]}/resume`, undefined, team.token, apps[1]);
    expect([resumed.status, resumed.body['error']]).toEqual([403, 'plan_limit_reached']);
    expect((await webhooks('POST', '', endpoint('E4'), team.token, apps[0])).body).toMatchObject({ error: 'plan_limit_reached' });
    expect((await webhooks('DELETE', `/${ids[0]}`, undefined, team.token, apps[0])).status).toBe(204);
    await settlesAt([null, null, null], ids.slice(1));

    // Free includes none; Pro all of them again.
    expect((await changePlan('free')).status).toBe(200);
    await settlesAt(['plan', 'plan', 'plan'], ids.slice(1));
    expect((await changePlan('pro')).status).toBe(200);
    await settlesAt([null, null, null], ids.slice(1));
  });
});

describe('the logs', () => {
  it('never carry a signing secret shown by creation or rotation', () => {
    // Run last: by now the tests above were shown every secret they made.
    expect(secretsShown.length).toBeGreaterThan(10);
    const leaked = secretsShown.filter((secret) => system.logs.some((line) => line.includes(secret) || line.includes(secret.slice('whsec_'.length))));
    expect(leaked).toEqual([]);
  });
});
