import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { createLogger } from '@feedback/logging';
import { createTestDatabase, resolveTestInfrastructure } from '@feedback/test-support';
import type { TestDatabase, TestInfrastructure } from '@feedback/test-support';
import winston from 'winston';
import { memberAccess } from '../access/actor.js';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from '../database.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { pruneMemberSessions } from './prune-sessions.js';
import { SESSION_AUDIENCE, SESSION_ISSUER, SessionSigner } from './session-tokens.js';
import { RENEWAL_GRACE_SECONDS, sessionCommands } from './sessions.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const signingKey = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const TTL_SECONDS = 900;
const MAX_SECONDS = 1000;
let infrastructure: TestInfrastructure;
let database: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  infrastructure = await resolveTestInfrastructure();
  database = await createTestDatabase(infrastructure.postgresUrl);
  await migrateAuthorityDatabase(database.url, logger);
  prisma = connectAuthorityDatabase(database.url);
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await infrastructure?.stop();
});

/** The authority's session handling on a clock the test moves, with a member signed in at its start. */
async function signedIn() {
  const key = signingKey();
  let clock = Date.now();
  const now = () => clock;
  const signer = new SessionSigner(key, now);
  const access = memberAccess(prisma, signer, now);
  const sessions = sessionCommands(prisma, signer, access, { ttlSeconds: TTL_SECONDS, maxSeconds: MAX_SECONDS }, logger, now);
  const team = await prisma.team.create({ data: { name: 'Acme' } });
  const member = await prisma.member.create({
    data: { teamId: team.id, email: `member-${team.id}@example.com`, name: 'Olive', passwordHash: 'not used here', role: 'owner' },
  });
  const started = clock;
  const { token } = await sessions.begin(member, team);
  const { id } = await prisma.memberSession.findFirstOrThrow({ where: { memberId: member.id } });
  return {
    key,
    member,
    team,
    access,
    sessions,
    token,
    renew: (token: string) => sessions.renewSession({ session: token }),
    /**
     * Starts `renewals` while the session's record is locked, and lets them go on together once two
     * of them wait for it: so they run at the same moment, whatever the scheduling.
     */
    async holdingSession<T>(renewals: () => Promise<T>): Promise<T> {
      let started: Promise<T> | undefined;
      await prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT 1 FROM authority.member_sessions WHERE id = ${id}::uuid FOR UPDATE`;
          started = renewals();
          started.catch(() => undefined);
          for (;;) {
            // Asked outside the transaction, which would see the activity as it was at its start.
            const [{ waiting }] = await prisma.$queryRaw<[{ waiting: number }]>`
              SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
            if (waiting >= 2) break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        },
        { timeout: 30_000 },
      );
      return started!;
    },
    /** The generation of the session's current token, as its record holds it. */
    generation: async () => (await prisma.memberSession.findUniqueOrThrow({ where: { id } })).generation,
    /** Seconds since sign-in, as the authority's clock reads. */
    at(seconds: number) {
      clock = started + seconds * 1000;
    },
    /** Whole seconds from sign-in to an instant answered. */
    secondsTo: (instant: string) => (Date.parse(instant) - Math.floor(started / 1000) * 1000) / 1000,
  };
}

describe('a member session', () => {
  it('gives a renewed token the token lifetime from now', async () => {
    const session = await signedIn();
    session.at(60);
    const renewed = await session.sessions.renewSession({ session: session.token });
    expect(session.secondsTo(renewed.expires_at)).toBe(60 + TTL_SECONDS);
    expect(await session.access.loadActor(renewed.token)).toMatchObject({ id: session.member.id });
  });

  it('renews no further than its absolute end, however often it is renewed', async () => {
    const session = await signedIn();
    session.at(500);
    const renewed = await session.sessions.renewSession({ session: session.token });
    expect(session.secondsTo(renewed.expires_at)).toBe(MAX_SECONDS);
  });

  it('is refused once its absolute end has passed, with the latest token renewed up to it', async () => {
    const session = await signedIn();
    session.at(500);
    const last = await session.sessions.renewSession({ session: session.token });
    session.at(MAX_SECONDS + 1);
    await expect(session.sessions.renewSession({ session: last.token })).rejects.toMatchObject({ code: 'session_invalid' });
    await expect(session.access.loadActor(last.token)).rejects.toMatchObject({ code: 'session_invalid' });
  });

  it('is refused once a token lifetime has passed without a renewal (the tab left idle)', async () => {
    const session = await signedIn();
    session.at(TTL_SECONDS + 1);
    await expect(session.sessions.renewSession({ session: session.token })).rejects.toMatchObject({ code: 'session_invalid' });
  });

  it('refuses every token of it once it has ended, and only of it', async () => {
    const session = await signedIn();
    const renewed = await session.sessions.renewSession({ session: session.token });
    const other = await session.sessions.begin(session.member, session.team);
    await session.sessions.endSession({ session: renewed.token });
    for (const token of [session.token, renewed.token]) {
      await expect(session.access.loadActor(token)).rejects.toMatchObject({ code: 'session_invalid' });
      await expect(session.sessions.renewSession({ session: token })).rejects.toMatchObject({ code: 'session_invalid' });
      await expect(session.sessions.getSession({ session: token })).rejects.toMatchObject({ code: 'session_invalid' });
    }
    await expect(session.access.loadActor(other.token)).resolves.toMatchObject({ id: session.member.id });
  });

  it('answers the member and team as they are now, and when the token sent expires', async () => {
    const session = await signedIn();
    await prisma.member.update({ where: { id: session.member.id }, data: { role: 'member' } });
    const current = await session.sessions.getSession({ session: session.token });
    expect(current).toMatchObject({ member: { id: session.member.id, role: 'member' }, team: { id: session.team.id } });
    expect(session.secondsTo(current.expires_at)).toBe(TTL_SECONDS);
  });

  it('refuses a token that names no session, as those signed before sessions were recorded do', async () => {
    const session = await signedIn();
    const withoutSession = await new SignJWT({ team_id: session.team.id, role: 'owner', name: 'Olive' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(session.member.id)
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(createPrivateKey(session.key));
    await expect(session.access.loadActor(withoutSession)).rejects.toMatchObject({ code: 'session_invalid' });
  });

  it('refuses a token signed with another key for the same session', async () => {
    const session = await signedIn();
    const { id } = await prisma.memberSession.findFirstOrThrow({ where: { memberId: session.member.id } });
    const forged = await new SessionSigner(signingKey()).sign(session.member, { id, generation: 0, expiresAt: new Date(Date.now() + 60_000) });
    await expect(session.access.loadActor(forged)).rejects.toMatchObject({ code: 'session_invalid' });
  });
});

describe('renewing a session', () => {
  const refused = { code: 'session_invalid' };

  it('renews with the current token, whose answer becomes the current one', async () => {
    const session = await signedIn();
    session.at(60);
    const first = await session.renew(session.token);
    expect(await session.generation()).toBe(1);
    session.at(120);
    const second = await session.renew(first.token);
    expect(await session.generation()).toBe(2);
    await expect(session.access.loadActor(second.token)).resolves.toMatchObject({ id: session.member.id });
  });

  it('ends the session when a replaced token renews after the grace, refusing every token of it, the newest included', async () => {
    const session = await signedIn();
    session.at(60);
    const newest = await session.renew(session.token);
    session.at(60 + RENEWAL_GRACE_SECONDS + 1);
    await expect(session.renew(session.token)).rejects.toMatchObject(refused);
    for (const token of [session.token, newest.token]) {
      await expect(session.access.loadActor(token)).rejects.toMatchObject(refused);
      await expect(session.sessions.getSession({ session: token })).rejects.toMatchObject(refused);
      await expect(session.renew(token)).rejects.toMatchObject(refused);
    }
  });

  it('answers the token just replaced, within the grace, with a working token of the current generation, and the session goes on', async () => {
    const session = await signedIn();
    session.at(60);
    const firstTab = await session.renew(session.token);
    session.at(60 + RENEWAL_GRACE_SECONDS - 1);
    const secondTab = await session.renew(session.token);
    expect(await session.generation()).toBe(1);
    await expect(session.access.loadActor(secondTab.token)).resolves.toMatchObject({ id: session.member.id });
    // Either tab's token is the current one: the first tab's still renews, well after the grace.
    session.at(300);
    await expect(session.renew(firstTab.token)).resolves.toMatchObject({ member: { id: session.member.id } });
    expect(await session.generation()).toBe(2);
  });

  it('lets two renewals with the same token at once both succeed, each answering a token of the current generation', async () => {
    const session = await signedIn();
    session.at(60);
    const [one, other] = await session.holdingSession(() => Promise.all([session.renew(session.token), session.renew(session.token)]));
    expect(await session.generation()).toBe(1);
    // Each answer renews after the grace: the first advances the generation, the second is within the grace of that.
    session.at(60 + RENEWAL_GRACE_SECONDS + 1);
    await session.renew(one.token);
    const last = await session.renew(other.token);
    await expect(session.access.loadActor(last.token)).resolves.toMatchObject({ id: session.member.id });
  });

  it('keeps answering other commands with a replaced token until it expires', async () => {
    const session = await signedIn();
    session.at(60);
    const first = await session.renew(session.token);
    session.at(120);
    const second = await session.renew(first.token);
    expect(await session.generation()).toBe(2);
    for (const token of [session.token, first.token]) {
      await expect(session.access.loadActor(token)).resolves.toMatchObject({ id: session.member.id });
      await expect(session.sessions.getSession({ session: token })).resolves.toMatchObject({ member: { id: session.member.id } });
    }
    session.at(TTL_SECONDS + 1);
    await expect(session.access.loadActor(session.token)).rejects.toMatchObject(refused);
    await expect(session.access.loadActor(second.token)).resolves.toMatchObject({ id: session.member.id });
  });

  it('renews a token signed before sessions had generations as the first of its session', async () => {
    const session = await signedIn();
    const { id } = await prisma.memberSession.findFirstOrThrow({ where: { memberId: session.member.id } });
    const withoutGeneration = await new SignJWT({ team_id: session.team.id, role: 'owner', name: 'Olive', sid: id })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(session.member.id)
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(createPrivateKey(session.key));
    await session.renew(withoutGeneration);
    expect(await session.generation()).toBe(1);
  });
});

describe('pruneMemberSessions', () => {
  it('deletes sessions that have expired or ended, a batch at a time, and keeps live ones', async () => {
    const session = await signedIn();
    const at = (seconds: number) => new Date(Date.now() + seconds * 1000);
    const made = (expiresIn: number, endedAgo?: number) =>
      prisma.memberSession.create({
        data: { memberId: session.member.id, expiresAt: at(expiresIn), latestEndAt: at(3600), endedAt: endedAgo === undefined ? null : at(-endedAgo) },
      });
    const expired = await made(-60);
    const ended = await made(-5, 5);
    const live = await made(600);
    await pruneMemberSessions(prisma, { batchSize: 1 });
    const left = (await prisma.memberSession.findMany({ where: { id: { in: [expired.id, ended.id, live.id] } } })).map((row) => row.id);
    expect(left).toEqual([live.id]);
    await expect(session.access.loadActor(session.token)).resolves.toMatchObject({ id: session.member.id });
  });
});
