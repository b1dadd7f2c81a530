import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Plan, TeamPlanChanged } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { createTestDatabase, resolveTestInfrastructure } from '@feedback/test-support';
import type { TestDatabase, TestInfrastructure } from '@feedback/test-support';
import winston from 'winston';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from '../database.js';
import { memberAccess } from '../access/actor.js';
import type { Role } from '../access/actor.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { SessionSigner } from '../members/session-tokens.js';
import { sessionCommands } from '../members/sessions.js';
import type { SessionCommands } from '../members/sessions.js';
import { changePlanCommand } from './change-plan.js';
import { PlanChanges } from './plan-changes.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let infrastructure: TestInfrastructure;
let database: TestDatabase;
let prisma: PrismaClient;
let sessions: SessionCommands;
let changePlan: ReturnType<typeof changePlanCommand>;
let planChanges: PlanChanges;
/** The broadcast to api instances is not what these tests are about: it always confirms. */
const notifier = { notify: async () => undefined } as unknown as KeyChangeNotifier;
/** What reached the broker, and whether it refuses now. */
let published: TeamPlanChanged[];
let brokerAway: boolean;

beforeAll(async () => {
  infrastructure = await resolveTestInfrastructure();
  database = await createTestDatabase(infrastructure.postgresUrl);
  await migrateAuthorityDatabase(database.url, logger);
  prisma = connectAuthorityDatabase(database.url);
  const signer = new SessionSigner(generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  const access = memberAccess(prisma, signer);
  sessions = sessionCommands(prisma, signer, access, { ttlSeconds: 900, maxSeconds: 43_200 }, logger);
  planChanges = new PlanChanges(
    prisma,
    async (change) => {
      if (brokerAway) throw new Error('the broker did not confirm');
      published.push(change);
    },
    logger,
  );
  changePlan = changePlanCommand(prisma, access, notifier, planChanges);
}, 60_000);

beforeEach(() => {
  published = [];
  brokerAway = false;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await infrastructure?.stop();
});

/** A team on `plan`, and a signed-in member of it with `role`. */
async function teamMember(plan: Plan, role: Role = 'owner') {
  const team = await prisma.team.create({ data: { name: 'Acme', plan } });
  const member = await prisma.member.create({
    data: { teamId: team.id, email: `${role}-${team.id}@example.com`, name: 'Olive', passwordHash: 'not used here', role },
  });
  const { token } = await sessions.begin(member, team);
  return { teamId: team.id, session: token };
}

const teamRow = (teamId: string) => prisma.team.findUniqueOrThrow({ where: { id: teamId } });

describe('changing the plan', () => {
  it('applies a lower plan at once, asking no other service, and publishes it with a new version', async () => {
    const owner = await teamMember('pro');
    await expect(changePlan({ session: owner.session, plan: 'free' })).resolves.toMatchObject({ plan: 'free' });
    expect(published).toEqual([{ team_id: owner.teamId, plan: 'free', plan_version: 2 }]);
    expect(await teamRow(owner.teamId)).toMatchObject({ plan: 'free', planVersion: 2, planPublishedVersion: 2 });
  });

  it('counts each change, so that an older one arriving late can be told apart', async () => {
    const owner = await teamMember('free');
    for (const plan of ['starter', 'pro', 'starter'] as const) await changePlan({ session: owner.session, plan });
    expect(published.map((change) => [change.plan, change.plan_version])).toEqual([
      ['starter', 2],
      ['pro', 3],
      ['starter', 4],
    ]);
  });

  it('counts no version for the same plan again, and publishes nothing new', async () => {
    const owner = await teamMember('starter');
    await expect(changePlan({ session: owner.session, plan: 'starter' })).resolves.toMatchObject({ plan: 'starter' });
    expect(published).toEqual([]);
    expect(await teamRow(owner.teamId)).toMatchObject({ planVersion: 1 });
  });

  it('answers the change even when the broker does not take it, and the sweep publishes it later', async () => {
    const owner = await teamMember('pro');
    brokerAway = true;
    await expect(changePlan({ session: owner.session, plan: 'starter' })).resolves.toMatchObject({ plan: 'starter' });
    expect(await teamRow(owner.teamId)).toMatchObject({ planVersion: 2, planPublishedVersion: 1 });
    await expect(planChanges.publishPending()).rejects.toThrow('the broker did not confirm');
    brokerAway = false;
    await planChanges.publishPending();
    expect(published).toContainEqual({ team_id: owner.teamId, plan: 'starter', plan_version: 2 });
    expect(await teamRow(owner.teamId)).toMatchObject({ planPublishedVersion: 2 });
  });

  it('publishes a version left behind when the Owner presses again', async () => {
    const owner = await teamMember('pro');
    brokerAway = true;
    await changePlan({ session: owner.session, plan: 'free' });
    brokerAway = false;
    await changePlan({ session: owner.session, plan: 'free' });
    expect(published).toEqual([{ team_id: owner.teamId, plan: 'free', plan_version: 2 }]);
  });

  it.each(['admin', 'member'] as const)('refuses an %s: only an Owner changes the plan', async (role) => {
    const other = await teamMember('pro', role);
    await expect(changePlan({ session: other.session, plan: 'free' })).rejects.toMatchObject({ code: 'insufficient_role' });
    expect(await teamRow(other.teamId)).toMatchObject({ plan: 'pro', planVersion: 1 });
    expect(published).toEqual([]);
  });
});

describe('a plan change from a session that has ended', () => {
  it('is refused as session_invalid, leaving the plan as it was', async () => {
    const owner = await teamMember('pro');
    await sessions.endSession({ session: owner.session });
    await expect(changePlan({ session: owner.session, plan: 'free' })).rejects.toMatchObject({ code: 'session_invalid' });
    expect(await teamRow(owner.teamId)).toMatchObject({ plan: 'pro', planVersion: 1 });
    expect(published).toEqual([]);
  });
});
