import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createTestDatabase, resolveTestInfrastructure } from '@feedback/test-support';
import type { TestDatabase, TestInfrastructure } from '@feedback/test-support';
import winston from 'winston';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from '../database.js';
import { memberAccess } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { SessionSigner } from '../members/session-tokens.js';
import { sessionCommands } from '../members/sessions.js';
import type { SessionCommands } from '../members/sessions.js';
import { changePlanCommand } from './change-plan.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let infrastructure: TestInfrastructure;
let database: TestDatabase;
let prisma: PrismaClient;
let access: MemberAccess;
let sessions: SessionCommands;
/** The broadcast to api instances is not what these tests are about: it always confirms. */
const notifier = { notify: async () => undefined } as unknown as KeyChangeNotifier;

beforeAll(async () => {
  infrastructure = await resolveTestInfrastructure();
  database = await createTestDatabase(infrastructure.postgresUrl);
  await migrateAuthorityDatabase(database.url, logger);
  prisma = connectAuthorityDatabase(database.url);
  const signer = new SessionSigner(generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  access = memberAccess(prisma, signer);
  sessions = sessionCommands(prisma, signer, access, { ttlSeconds: 900, maxSeconds: 43_200 }, logger);
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await infrastructure?.stop();
});

async function proTeamOwner() {
  const team = await prisma.team.create({ data: { name: 'Acme', plan: 'pro' } });
  const owner = await prisma.member.create({
    data: { teamId: team.id, email: `owner-${team.id}@example.com`, name: 'Olive', passwordHash: 'not used here', role: 'owner' },
  });
  const { token } = await sessions.begin(owner, team);
  return { team_id: team.id, session: token };
}

describe('changing to a plan with fewer webhook endpoints', () => {
  it('puts the plan back when an endpoint was created between the count and the commit', async () => {
    const actor = await proTeamOwner();
    // The worker's count: none before the change, one after (a creation that read the old plan got in).
    const counts = [0, 1];
    const changePlan = changePlanCommand(prisma, access, notifier, async () => counts.shift()!, logger);
    await expect(changePlan({ session: actor.session, plan: 'free' })).rejects.toMatchObject({ code: 'too_many_webhook_endpoints' });
    expect((await prisma.team.findUniqueOrThrow({ where: { id: actor.team_id } })).plan).toBe('pro');
  });

  it('puts the plan back when the count after the commit cannot be had', async () => {
    const actor = await proTeamOwner();
    let asked = 0;
    const changePlan = changePlanCommand(prisma, access, notifier, async () => {
      asked += 1;
      if (asked === 2) throw new Error('no answer');
      return 0;
    }, logger);
    await expect(changePlan({ session: actor.session, plan: 'starter' })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect((await prisma.team.findUniqueOrThrow({ where: { id: actor.team_id } })).plan).toBe('pro');
  });

  it('keeps the plan when both counts are within it', async () => {
    const actor = await proTeamOwner();
    const changePlan = changePlanCommand(prisma, access, notifier, async () => 2, logger);
    await expect(changePlan({ session: actor.session, plan: 'starter' })).resolves.toMatchObject({ plan: 'starter' });
    expect((await prisma.team.findUniqueOrThrow({ where: { id: actor.team_id } })).plan).toBe('starter');
  });
});
