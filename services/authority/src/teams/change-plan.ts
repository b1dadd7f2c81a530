import { WEBHOOK_ENDPOINT_LIMITS } from '@feedback/contracts';
import type { Plan, RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';
import { requireRole } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { teamView } from '../views.js';

function tooManyEndpoints(count: number, plan: Plan, limit: number): RpcError {
  return new RpcError(
    'too_many_webhook_endpoints',
    `The team has ${count} webhook endpoints and the ${plan} plan includes ${limit === 0 ? 'none' : `up to ${limit}`}. ` +
      `Delete ${count - limit} under Settings -> Webhooks, then change the plan.`,
  );
}

/** How many webhook endpoints a team has: the worker owns them. */
export type WebhookEndpointCount = (teamId: string) => Promise<number>;

/**
 * The Owner changes the team's plan. A plan that includes fewer webhook endpoints than the team
 * has is refused until some are deleted: on Free, webhooks are not included at all, and a team
 * that kept its endpoints would go on receiving them. Only such a plan needs the worker's count,
 * so an upgrade never waits on it. The REST API follows the plan at once (the api instances drop
 * the team's cached keys).
 */
export function changePlanCommand(
  prisma: PrismaClient,
  access: MemberAccess,
  notifier: KeyChangeNotifier,
  webhookEndpoints: WebhookEndpointCount,
  logger: Logger,
) {
  /**
   * An endpoint created between the count above and the commit, by a creation that read the old
   * plan, would leave the team over its new limit. The worker counts under the lock creations
   * take, and a creation checks the plan again under it (authority.teamPlan): so counting again
   * now sees every creation that read the old plan. If one slipped in, or the count cannot be
   * had, the plan goes back to what it was.
   */
  async function recountAfterLowering(teamId: string, previous: Plan, plan: Plan, limit: number): Promise<void> {
    const count = await webhookEndpoints(teamId).catch((error: unknown) => {
      logger.warn('could not count the team\'s webhook endpoints after lowering the plan; plan restored', { error, teamId });
      return undefined;
    });
    if (count !== undefined && count <= limit) return;
    await prisma.team.updateMany({ where: { id: teamId, plan }, data: { plan: previous } });
    // Not awaited: the answer must not wait on the api instances a second time (the dashboard's
    // own time limit), and a cached plan lower than the real one only refuses, for a cache lifetime.
    void notifier.notify({ key_ids: [], team_id: teamId, reason: 'plan_changed' }).catch((error: unknown) => {
      logger.warn('plan restored; not every api instance confirmed it yet', { error, teamId });
    });
    if (count === undefined) throw new RpcError('service_unavailable', 'The webhook service did not answer; the plan is unchanged. Retry shortly.');
    throw tooManyEndpoints(count, plan, limit);
  }

  return async ({ session, plan }: RpcRequest<'authority.changePlan'>): Promise<RpcResult<'authority.changePlan'>> => {
    const member = await access.loadActor(session);
    requireRole(member, ['owner'], 'change the plan');
    const current = await prisma.team.findUniqueOrThrow({ where: { id: member.teamId } });
    const limit = WEBHOOK_ENDPOINT_LIMITS[plan];
    if (limit < WEBHOOK_ENDPOINT_LIMITS[current.plan]) {
      const count = await webhookEndpoints(member.teamId).catch((error: unknown) => {
        // Whatever went wrong over there (no answer, an older worker, a malformed reply), the
        // Owner's request was fine: the plan stays as it was and they may retry.
        logger.warn('could not count the team\'s webhook endpoints; plan unchanged', { error, teamId: member.teamId });
        throw new RpcError('service_unavailable', 'The webhook service did not answer; the plan is unchanged. Retry shortly.');
      });
      if (count > limit) throw tooManyEndpoints(count, plan, limit);
    }
    const team = await prisma.team.update({ where: { id: member.teamId }, data: { plan } });
    const notified = notifier.notify({ key_ids: [], team_id: team.id, reason: 'plan_changed' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The recount runs whatever the api instances answered: a creation that got in must not stay
    // because one of them was slow (a retry of the same plan would count nothing).
    if (limit < WEBHOOK_ENDPOINT_LIMITS[current.plan]) await recountAfterLowering(team.id, current.plan, plan, limit);
    const unconfirmed = await notified;
    if (unconfirmed !== undefined) throw unconfirmed;
    return teamView(team);
  };
}
