import { teamPlanChangedContract } from '@feedback/contracts';
import type { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';
import { QUORUM_QUEUE, declareExchanges, startConsumer } from '@feedback/messaging';
import type { Broker, Consumer, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';
import { applyPlanChange } from '../endpoints/team-plans.js';

/**
 * Keeps each team's plan as the authority publishes it (`team.plan_changed`), and fits the team's
 * endpoints to it. The worker's own queue holds changes made while every worker was away.
 */
export function consumePlanChanges(options: { broker: Broker; names: TopologyNames; prisma: PrismaClient; logger: Logger; metrics?: Registry }): Consumer {
  const { names } = options;
  return startConsumer(options.broker, options.logger, {
    queue: names.workerPlanChangesQueue,
    metrics: options.metrics,
    setup: async (channel) => {
      await declareExchanges(channel, names, ['authorityEvents']);
      await channel.assertQueue(names.workerPlanChangesQueue, QUORUM_QUEUE);
      await channel.bindQueue(names.workerPlanChangesQueue, names.authorityEvents, 'team.plan_changed');
    },
    contract: teamPlanChangedContract,
    prefetch: 5,
    handle: async (change) => {
      const fit = await applyPlanChange(options.prisma, change);
      if (!fit.applied) return;
      options.logger.info('team plan changed', { teamId: change.team_id, plan: change.plan, version: change.plan_version, paused: fit.paused, resumed: fit.resumed });
    },
  });
}
