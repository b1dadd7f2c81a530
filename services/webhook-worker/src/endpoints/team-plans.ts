import { WEBHOOK_ENDPOINT_LIMITS } from '@feedback/contracts';
import type { Plan, TeamPlanChanged } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { CANCEL_RECOVERY_SQL, writeAudit } from './endpoint-audit.js';

type Db = Prisma.TransactionClient | PrismaClient;

/** What an endpoint command's verified grant says of the team's plan. */
export interface GrantedPlan {
  team_id: string;
  plan: Plan;
  plan_version: number;
}

const PLAN_NAMES: Record<Plan, string> = { free: 'Free', starter: 'Starter', pro: 'Pro' };

/**
 * Creations, plan changes and deletions of one team's endpoints take turns: a transaction-scoped
 * lock on the team. Whichever comes second sees what the first did.
 */
export const lockTeamEndpoints = (tx: Prisma.TransactionClient, teamId: string) => tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`endpoints:${teamId}`}))`;

/** The refusal of an endpoint the plan does not include. */
export function planLimitReached(plan: Plan): RpcError {
  const limit = WEBHOOK_ENDPOINT_LIMITS[plan];
  return new RpcError(
    'plan_limit_reached',
    limit === 0 ? 'Webhooks are not included in the Free plan. Upgrade to Starter or Pro.' : `The ${plan} plan includes up to ${limit} webhook endpoints. Upgrade to Pro for more.`,
  );
}

/**
 * The team's plan: the newer of the one kept from `team.plan_changed` and the one the command's
 * grant names. A grant signed after a change the worker has not heard yet is the newer one.
 */
export async function planOf(db: Db, owner: GrantedPlan): Promise<Plan> {
  const kept = await db.teamPlan.findUnique({ where: { teamId: owner.team_id } });
  return kept && kept.version >= owner.plan_version ? (kept.plan as Plan) : owner.plan;
}

/** What a plan change did to the team's endpoints. */
export interface PlanFit {
  applied: boolean;
  paused: number;
  resumed: number;
}

/**
 * Keeps a plan change heard from the authority, unless a newer one is kept already, and fits the
 * team's endpoints to it, under the team's lock.
 */
export function applyPlanChange(prisma: PrismaClient, change: TeamPlanChanged): Promise<PlanFit> {
  return prisma.$transaction(async (tx) => {
    await lockTeamEndpoints(tx, change.team_id);
    const kept = await tx.$executeRaw`
      INSERT INTO webhooks.team_plans (team_id, plan, version) VALUES (${change.team_id}::uuid, ${change.plan}, ${change.plan_version})
      ON CONFLICT (team_id) DO UPDATE SET plan = EXCLUDED.plan, version = EXCLUDED.version, updated_at = now()
      WHERE team_plans.version < EXCLUDED.version`;
    if (kept === 0) return { applied: false, paused: 0, resumed: 0 };
    return { applied: true, ...(await fitToPlan(tx, change.team_id, change.plan)) };
  });
}

/**
 * Fits a team's endpoints to its plan, under the team's lock. The oldest the plan includes keep
 * going; the newer ones beyond it are paused, reason `plan`. Those paused for the plan that it
 * includes again are resumed. An endpoint paused by a member, or for failing, stays as it is.
 */
export async function fitToPlan(tx: Prisma.TransactionClient, teamId: string, plan: Plan): Promise<{ paused: number; resumed: number }> {
  const limit = WEBHOOK_ENDPOINT_LIMITS[plan];
  const endpoints = await tx.webhookEndpoint.findMany({
    where: { teamId, listenSession: false },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, appId: true, name: true, pausedAt: true, pausedReason: true },
  });
  const toPause = endpoints.slice(limit).filter((endpoint) => endpoint.pausedAt === null);
  const toResume = endpoints.slice(0, limit).filter((endpoint) => endpoint.pausedReason === 'plan');
  const why = limit === 0 ? 'The Free plan includes no webhooks.' : `The ${PLAN_NAMES[plan]} plan includes ${limit} webhook endpoints, and this one is newer than those.`;
  for (const endpoint of toPause) {
    await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { pausedAt: new Date(), pausedReason: 'plan', pausedBy: null } });
    await writeAudit(tx, { appId: endpoint.appId, endpointId: endpoint.id, endpointName: endpoint.name, action: 'paused', actorName: null, detail: why });
    await tx.$executeRawUnsafe(CANCEL_RECOVERY_SQL('$1::uuid'), endpoint.id);
  }
  for (const endpoint of toResume) {
    // As a resume by hand: its failing starts afresh.
    await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { pausedAt: null, pausedReason: null, pausedBy: null, failingSince: null } });
    const held = await tx.delivery.count({ where: { endpointId: endpoint.id, status: 'held' } });
    const detail = `The ${PLAN_NAMES[plan]} plan includes it again. ${held === 0 ? 'No delivery was held.' : `${held} held deliveries wait for a Recover.`}`;
    await writeAudit(tx, { appId: endpoint.appId, endpointId: endpoint.id, endpointName: endpoint.name, action: 'resumed', actorName: null, detail });
  }
  return { paused: toPause.length, resumed: toResume.length };
}

/**
 * Refuses to resume an endpoint the plan leaves out: the team has as many older endpoints as the
 * plan includes. Called under the team's lock.
 */
export async function refuseBeyondPlan(tx: Prisma.TransactionClient, endpoint: { id: string; teamId: string; createdAt: Date }, plan: Plan): Promise<void> {
  const limit = WEBHOOK_ENDPOINT_LIMITS[plan];
  if (limit === Number.POSITIVE_INFINITY) return;
  const older = await tx.webhookEndpoint.count({
    where: {
      teamId: endpoint.teamId,
      listenSession: false,
      OR: [{ createdAt: { lt: endpoint.createdAt } }, { createdAt: endpoint.createdAt, id: { lt: endpoint.id } }],
    },
  });
  if (older < limit) return;
  throw new RpcError(
    'plan_limit_reached',
    limit === 0
      ? 'Webhooks are not included in the Free plan. Upgrade to Starter or Pro.'
      : `The ${PLAN_NAMES[plan]} plan includes ${limit} webhook endpoints, and this one is newer than those. Delete an older one, or upgrade to Pro.`,
  );
}
