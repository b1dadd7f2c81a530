import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { PrismaClient } from '../generated/prisma/client.js';
import { requireRole } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { teamView } from '../views.js';
import type { PlanChanges } from './plan-changes.js';

/**
 * The Owner changes the team's plan, which the authority decides alone: it asks no other service.
 *
 * The change counts a new version. The worker hears it as `team.plan_changed` and fits the team's
 * webhook endpoints to it, pausing those a lower plan leaves out (docs/decisions.md). The REST API
 * follows the plan at once: the api instances drop the team's cached keys.
 */
export function changePlanCommand(prisma: PrismaClient, access: MemberAccess, notifier: KeyChangeNotifier, planChanges: PlanChanges) {
  return async ({ session, plan }: RpcRequest<'authority.changePlan'>): Promise<RpcResult<'authority.changePlan'>> => {
    const member = await access.loadActor(session);
    requireRole(member, ['owner'], 'change the plan');
    // The same plan again counts no version: a retry after propagation_unconfirmed only confirms.
    await prisma.team.updateMany({ where: { id: member.teamId, plan: { not: plan } }, data: { plan, planVersion: { increment: 1 } } });
    const team = await prisma.team.findUniqueOrThrow({ where: { id: member.teamId } });
    await Promise.all([
      // Also a version an earlier publish left behind: it goes out now rather than at the next sweep.
      team.planVersion > team.planPublishedVersion ? planChanges.publishSoon(team) : undefined,
      // Also when nothing changed: a retry after "propagation_unconfirmed" must confirm the change.
      notifier.notify({ key_ids: [], team_id: team.id, reason: 'plan_changed' }),
    ]);
    return teamView(team);
  };
}
