import { WEBHOOK_ENDPOINT_LIMITS } from '@feedback/contracts';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';
import { loadActor, requireRole } from '../access/actor.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { teamView } from '../views.js';

/** How many webhook endpoints a team has: the worker owns them. */
export type WebhookEndpointCount = (teamId: string) => Promise<number>;

/**
 * The Owner changes the team's plan. A plan that includes fewer webhook endpoints than the team
 * has is refused until some are deleted: on Free, webhooks are not included at all, and a team
 * that kept its endpoints would go on receiving them. Only such a plan needs the worker's count,
 * so an upgrade never waits on it. The REST API follows the plan at once (the api instances drop
 * the team's cached keys).
 */
export function changePlanCommand(prisma: PrismaClient, notifier: KeyChangeNotifier, webhookEndpoints: WebhookEndpointCount, logger: Logger) {
  return async ({ actor, plan }: RpcRequest<'authority.changePlan'>): Promise<RpcResult<'authority.changePlan'>> => {
    const member = await loadActor(prisma, actor);
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
      if (count > limit) {
        throw new RpcError(
          'too_many_webhook_endpoints',
          `The team has ${count} webhook endpoints and the ${plan} plan includes ${limit === 0 ? 'none' : `up to ${limit}`}. ` +
            `Delete ${count - limit} under Settings -> Webhooks, then change the plan.`,
        );
      }
    }
    const team = await prisma.team.update({ where: { id: member.teamId }, data: { plan } });
    await notifier.notify({ key_ids: [], team_id: team.id, reason: 'plan_changed' });
    return teamView(team);
  };
}
