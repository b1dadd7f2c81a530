import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { generatePublicKey } from '@feedback/keys';
import { eventually } from '@feedback/test-support';
import pg from 'pg';
import type { ApiService } from '../../../services/api/src/service.js';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Answer } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let other: ApiService;
/** The two api instances, taken in turn: a limit counts across both. */
let instances: string[];
let turn = 0;
const next = () => instances[turn++ % instances.length]!;

beforeAll(async () => {
  system = await startSystem({
    AUTH_FAILURE_LIMIT: '5',
    SIGN_UP_LIMIT: '3',
    SIGN_IN_ADDRESS_LIMIT: '4',
    SIGN_IN_ACCOUNT_LIMIT: '3',
    WIDGET_ADDRESS_LIMIT: '6',
    WIDGET_KEY_LIMIT: '4',
    // The authority hashes one password at a time, and keeps none waiting.
    PASSWORD_HASHING_CONCURRENCY: '1',
    PASSWORD_HASHING_QUEUE: '0',
  });
  other = await system.startAnotherApi();
  instances = [system.api.url, other.url];
});

afterAll(async () => {
  await system.stop();
});

/** From a client address of its own (the api trusts X-Forwarded-For from loopback). */
const from = (address: string) => ({ 'x-forwarded-for': address });
let addresses = 0;
/** A team signed up from an address no other sign-up used. */
const newTeam = () => signUpTeam(system.api.url, 'pro', from(`100.64.0.${(addresses += 1)}`));

const signUp = (address: string, n: number) =>
  call(next(), 'POST', '/dashboard/v1/sign-up', {
    body: { team_name: `Flood ${n}`, name: 'F', email: `flood-${address.replace(/[^0-9a-f]/g, '-')}-${n}-${Date.now()}@example.com`, password: 'a long enough password' },
    headers: from(address),
  });

function expectLimited(answer: Answer): void {
  expect([answer.status, answer.body['error']]).toEqual([429, 'rate_limited']);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('request limits, shared by every api instance', () => {
  it('answers the fourth sign-up from one address in an hour 429 with Retry-After, counted across two instances, and not another address', async () => {
    for (let n = 0; n < 3; n += 1) expect((await signUp('198.51.100.1', n)).status).toBe(201);
    expectLimited(await signUp('198.51.100.1', 3));
    expect((await signUp('198.51.100.2', 0)).status).toBe(201);
  });

  it('counts IPv6 clients by their /64: another address of the same /64 is the same client, one of the next /64 is not', async () => {
    for (let n = 0; n < 3; n += 1) expect((await signUp(`2001:db8:1:2::${n + 1}`, n)).status).toBe(201);
    expectLimited(await signUp('2001:db8:1:2:ffff:ffff:ffff:9', 3));
    expect((await signUp('2001:db8:1:3::1', 0)).status).toBe(201);
  });

  it('refuses an account after its failed sign-ins, from whatever addresses, even with the right password', async () => {
    const member = await newTeam();
    const signIn = (password: string, address: string) => call(next(), 'POST', '/dashboard/v1/sign-in', { body: { email: member.email, password }, headers: from(address) });
    for (let n = 0; n < 3; n += 1) expect((await signIn('a wrong password!', `192.0.2.${n + 10}`)).status).toBe(401);
    const refused = await signIn(member.password, '192.0.2.20');
    expectLimited(refused);
    // Refused for a quarter of an hour at first.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
    // Another account is not.
    const another = await newTeam();
    expect((await call(next(), 'POST', '/dashboard/v1/sign-in', { body: { email: another.email, password: another.password }, headers: from('192.0.2.21') })).status).toBe(200);
  });

  it('starts an account\'s count again when it signs in', async () => {
    const member = await newTeam();
    let n = 0;
    const signIn = (password: string) => call(next(), 'POST', '/dashboard/v1/sign-in', { body: { email: member.email, password }, headers: from(`192.0.2.${30 + (n += 1)}`) });
    const database = new pg.Client({ connectionString: system.databaseUrl });
    await database.connect();
    const key = `sign-in-failures:${createHash('sha256').update(member.email).digest('hex')}`;
    try {
      for (let round = 0; round < 2; round += 1) {
        for (let n = 0; n < 2; n += 1) expect((await signIn('a wrong password!')).status).toBe(401);
        expect((await signIn(member.password)).status).toBe(200);
        // The count starts again once the answer is sent: waited for, so the next round does not race it.
        await eventually(async () => ((await database.query('SELECT 1 FROM api.rate_limits WHERE key = $1', [key])).rowCount === 0 ? true : undefined), { what: 'the count reset' });
      }
    } finally {
      await database.end();
    }
  });

  it('answers the fifth sign-in attempt from one address in a minute 429, whatever accounts it tries', async () => {
    const attempts: number[] = [];
    for (let n = 0; n < 5; n += 1) {
      const answer = await call(next(), 'POST', '/dashboard/v1/sign-in', { body: { email: `nobody-${n}@example.com`, password: 'a wrong password!' }, headers: from('192.0.2.60') });
      attempts.push(answer.status);
    }
    expect(attempts).toEqual([401, 401, 401, 401, 429]);
  });

  it('answers sign-ups the authority has no room to hash 429 rate_limited with Retry-After, at once, rather than queue them', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => signUp(`100.64.1.${n + 1}`, n)));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.some((answer) => answer.status === 201)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expectLimited(answer);
  });

  it('counts guesses sent at the same moment as they arrive: of twenty at once, five are answered and the rest refused', async () => {
    const guess = `sk_live_${'A'.repeat(33)}AAAAAA`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(next(), 'GET', '/api/v1/suggestions', { key: guess, headers: from('192.0.2.50') })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it("limits the widget per public key from every address together, and per address whatever keys it sends", async () => {
    const owner = await newTeam();
    const { publicKey } = await createApp(system.api.url, owner.token);
    const widget = (key: string, address: string) =>
      call(next(), 'POST', '/widget/v1/suggestions', { key, body: { title: 'Again', user: { external_id: 'u1', name: 'U' } }, headers: from(address) });
    for (let n = 0; n < 4; n += 1) expect((await widget(publicKey, `203.0.113.${n + 1}`)).status).toBe(201);
    expectLimited(await widget(publicKey, '203.0.113.9'));
    // Random keys from one address: refused 401, then 429 past the address's limit.
    const randomKeys: number[] = [];
    for (let n = 0; n < 7; n += 1) randomKeys.push((await widget(generatePublicKey(), '203.0.113.20')).status);
    expect(randomKeys).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });

  it('asks the authority once about a public key no app has, however often it is sent', async () => {
    const unknown = generatePublicKey();
    const asked = async () => {
      const text = await (await fetch(system.api.metricsUrl)).text();
      const line = text.split('\n').find((row) => row.includes('feedback_rpc_call_duration_seconds_count{') && row.includes('authority.verifyPublicKey') && row.includes('outcome="unknown_key"'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const before = await asked();
    for (let n = 0; n < 4; n += 1) {
      const answer = await call(system.api.url, 'POST', '/widget/v1/tickets', { key: unknown, body: {}, headers: from(`203.0.113.${100 + n}`) });
      expect(answer.status).toBe(401);
    }
    expect((await asked()) - before).toBe(1);
  });
});

describe('an api instance that serves some surfaces', () => {
  it('answers only the surfaces it serves, so that the integrations can have instances a flood of sign-ups or widget requests never reaches', async () => {
    const integrations = await system.startAnotherApi({ SURFACES: 'api' });
    expect((await call(integrations.url, 'GET', '/api/v1/suggestions')).status).toBe(401);
    expect((await call(integrations.url, 'GET', '/api/v1/openapi.json')).status).toBe(200);
    expect((await call(integrations.url, 'POST', '/dashboard/v1/sign-up', { body: {} })).status).toBe(404);
    expect((await call(integrations.url, 'POST', '/widget/v1/suggestions', { body: {} })).status).toBe(404);
  });
});
