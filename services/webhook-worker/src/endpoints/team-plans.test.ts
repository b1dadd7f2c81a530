import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Plan } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import type { RpcCall } from '@feedback/messaging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import winston from 'winston';
import { connectWorkerDatabase, migrateWorkerDatabase } from '../database.js';
import type { WorkerDatabase } from '../database.js';
import type { EndpointUrlPolicy } from '../outbound/endpoint-url-policy.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';
import { endpointCommands } from './endpoint-commands.js';
import { pauseCommands } from './endpoint-pauses.js';
import { SecretBox } from './signing-secrets.js';
import { applyPlanChange } from './team-plans.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
/** URLs are not what these tests are about: every one is taken as it is. */
const urls = { check: async (url: string) => url } as unknown as EndpointUrlPolicy;
const patientCall = { remainingMs: () => 60_000, throwIfCallerGone: () => undefined } as unknown as RpcCall;
let database: MigratedTestDatabase;
let worker: WorkerDatabase;
let endpoints: ReturnType<typeof endpointCommands>;
let pauses: ReturnType<typeof pauseCommands>;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  worker = connectWorkerDatabase(database.url, logger, 4);
  endpoints = endpointCommands(worker.prisma, new SecretBox(randomBytes(32).toString('base64')), urls);
  pauses = pauseCommands(worker.prisma, logger);
}, 60_000);

afterAll(async () => {
  await worker?.prisma.$disconnect();
  await worker?.pool.end();
  await database?.drop();
});

/** A team with `count` endpoints, made a minute apart, oldest first: answers the team and their ids. */
async function teamWith(count: number) {
  const teamId = randomUUID();
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    ids.push(await insertEndpoint(database.pool, { teamId, name: `E${n}`, createdAt: new Date(Date.UTC(2026, 0, 1, 0, n)) }));
  }
  return { teamId, ids };
}

/** What a command's verified grant says: the plan at `version`. */
const owner = (teamId: string, plan: Plan, version: number) => ({ team_id: teamId, app_id: 1, plan, plan_version: version, grant: 'verified before the command runs' });

/** Each endpoint's pause reason, oldest first: null while it is not paused. */
async function pausesOf(teamId: string) {
  const rows = await worker.prisma.webhookEndpoint.findMany({ where: { teamId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map((row) => row.pausedReason);
}

const creation = (teamId: string, plan: Plan, version: number) =>
  endpoints.create({ owner: owner(teamId, plan, version), name: 'New', url: 'https://example.com/new', events: ['suggestion.created'] }, patientCall);

describe('a plan change heard from the authority', () => {
  it('pauses the newest endpoints beyond a lower plan, each with an audit entry, and keeps the oldest going', async () => {
    const { teamId, ids } = await teamWith(5);
    await expect(applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 })).resolves.toEqual({ applied: true, paused: 2, resumed: 0 });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan', 'plan']);
    const audit = await worker.prisma.endpointAuditEntry.findMany({ where: { endpointId: { in: ids } } });
    expect(audit.map((entry) => [entry.endpointName, entry.action, entry.actorName])).toEqual([
      ['E3', 'paused', null],
      ['E4', 'paused', null],
    ]);
    expect(audit[0]!.detail).toBe('The Starter plan includes 3 webhook endpoints, and this one is newer than those.');
  });

  it('resumes them when a later change includes them again', async () => {
    const { teamId } = await teamWith(4);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'free', plan_version: 2 });
    expect(await pausesOf(teamId)).toEqual(['plan', 'plan', 'plan', 'plan']);
    await expect(applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 3 })).resolves.toEqual({ applied: true, paused: 0, resumed: 3 });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan']);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'pro', plan_version: 4 });
    expect(await pausesOf(teamId)).toEqual([null, null, null, null]);
  });

  it('changes nothing when it is older than the change kept: the broker may hand changes over out of order', async () => {
    const { teamId } = await teamWith(4);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 3 });
    await expect(applyPlanChange(worker.prisma, { team_id: teamId, plan: 'pro', plan_version: 2 })).resolves.toEqual({ applied: false, paused: 0, resumed: 0 });
    await expect(applyPlanChange(worker.prisma, { team_id: teamId, plan: 'pro', plan_version: 3 })).resolves.toMatchObject({ applied: false });
    expect(await worker.prisma.teamPlan.findUniqueOrThrow({ where: { teamId } })).toMatchObject({ plan: 'starter', version: 3 });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan']);
  });

  it('leaves an endpoint paused by a member as it is, and resumes only those the plan paused', async () => {
    const { teamId, ids } = await teamWith(2);
    await pauses.pause({ owner: owner(teamId, 'pro', 1), endpoint_id: ids[0]!, member_name: 'Sam' });
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'free', plan_version: 2 });
    expect(await pausesOf(teamId)).toEqual(['member', 'plan']);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'pro', plan_version: 3 });
    expect(await pausesOf(teamId)).toEqual(['member', null]);
  });
});

describe('creating an endpoint against the plan the worker keeps', () => {
  it('pauses a creation that read the plan before a lowering, once the lowering arrives', async () => {
    const { teamId } = await teamWith(3);
    // Its grant says Pro: the lowering is not heard yet.
    const created = await creation(teamId, 'pro', 1);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan']);
    expect((await endpoints.get({ owner: owner(teamId, 'starter', 2), endpoint_id: created.endpoint.id })).pause).toMatchObject({ reason: 'plan', paused_by: null });
  });

  it('refuses one whose grant is older than the lowering heard', async () => {
    const { teamId } = await teamWith(3);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 });
    await expect(creation(teamId, 'pro', 1)).rejects.toMatchObject({ code: 'plan_limit_reached' });
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'free', plan_version: 3 });
    await expect(creation(teamId, 'starter', 2)).rejects.toMatchObject({ code: 'plan_limit_reached', message: expect.stringContaining('Free plan') });
  });

  it('takes one whose grant is newer than the change heard: a team that has just upgraded is not refused', async () => {
    const { teamId } = await teamWith(3);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 });
    await expect(creation(teamId, 'pro', 3)).resolves.toMatchObject({ endpoint: { name: 'New' } });
  });

  it('takes the plan from the grant for a team it has heard nothing of', async () => {
    const { teamId } = await teamWith(3);
    await expect(creation(teamId, 'starter', 1)).rejects.toMatchObject({ code: 'plan_limit_reached' });
    await expect(creation(teamId, 'pro', 1)).resolves.toMatchObject({ endpoint: { name: 'New' } });
  });
});

describe('an endpoint the plan paused', () => {
  it('is not resumed by hand while the plan leaves it out', async () => {
    const { teamId, ids } = await teamWith(4);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 });
    await expect(pauses.resume({ owner: owner(teamId, 'starter', 2), endpoint_id: ids[3]!, member_name: 'Sam' })).rejects.toMatchObject({ code: 'plan_limit_reached' });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan']);
  });

  it('resumes when an older endpoint is deleted and leaves it a place', async () => {
    const { teamId, ids } = await teamWith(5);
    await applyPlanChange(worker.prisma, { team_id: teamId, plan: 'starter', plan_version: 2 });
    await endpoints.remove({ owner: owner(teamId, 'starter', 2), endpoint_id: ids[1]! });
    expect(await pausesOf(teamId)).toEqual([null, null, null, 'plan']);
    const resumed = await worker.prisma.endpointAuditEntry.findFirstOrThrow({ where: { endpointId: ids[3]!, action: 'resumed' } });
    expect(resumed).toMatchObject({ actorName: null, detail: 'The Starter plan includes it again. No delivery was held.' });
  });
});
