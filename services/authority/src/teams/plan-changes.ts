import type { TeamPlanChanged } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { ConfirmedPublisher, declareExchanges } from '@feedback/messaging';
import type { Broker, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';

/** A team's plan as the worker hears it. */
export interface PlanOfTeam {
  id: string;
  plan: TeamPlanChanged['plan'];
  planVersion: number;
}

/** Where a plan change goes: a confirmed publish that fails when no queue takes it. */
export type PublishPlanChange = (change: TeamPlanChanged) => Promise<void>;

/** Teams published again in one run of `publishPending`. */
const PENDING_BATCH = 100;

/**
 * Publishes each team's plan changes as `team.plan_changed`, for the worker to keep.
 *
 * A change counts as published once a queue took it. The publish is mandatory, so a change made
 * before the worker's queue exists is not lost. One that fails is published again by
 * `publishPending`, which the authority runs every few seconds.
 */
export class PlanChanges {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly publish: PublishPlanChange,
    private readonly logger: Logger,
  ) {}

  /** Publishes the team's plan if that version is not published yet. Throws when the broker refuses. */
  async publishTeam(team: PlanOfTeam): Promise<void> {
    await this.publish({ team_id: team.id, plan: team.plan, plan_version: team.planVersion });
    await this.prisma.team.updateMany({ where: { id: team.id, planPublishedVersion: { lt: team.planVersion } }, data: { planPublishedVersion: team.planVersion } });
  }

  /** Publishes the team's plan at once; a failure is logged and left to `publishPending`. */
  async publishSoon(team: PlanOfTeam): Promise<void> {
    await this.publishTeam(team).catch((error: unknown) => {
      this.logger.warn('plan change not published yet; published again shortly', { error, teamId: team.id });
    });
  }

  /** Publishes every change not published yet, oldest team first. Answers how many it published. */
  async publishPending(): Promise<number> {
    const pending = await this.prisma.$queryRaw<Array<{ id: string; plan: PlanOfTeam['plan']; plan_version: number }>>`
      SELECT id, plan::text AS plan, plan_version FROM authority.teams
      WHERE plan_version > plan_published_version ORDER BY created_at LIMIT ${PENDING_BATCH}`;
    // One at a time, stopping at the first failure: the broker that refused one refuses the rest.
    for (const team of pending) await this.publishTeam({ id: team.id, plan: team.plan, planVersion: team.plan_version });
    return pending.length;
  }
}

/** Publishes plan changes on `authority.events`, confirmed and mandatory. */
export function planChangePublisher(broker: Broker, names: TopologyNames): { publish: PublishPlanChange; close(): Promise<void> } {
  // A confirm that takes longer leaves the change to the next sweep rather than hold the Owner's answer.
  const publisher = new ConfirmedPublisher(broker, { name: 'plan-changes', timeoutMs: 2000, setup: (channel) => declareExchanges(channel, names, ['authorityEvents']) });
  return {
    publish: (change) => publisher.publish(names.authorityEvents, 'team.plan_changed', change, { mandatory: true, messageId: `${change.team_id}:${change.plan_version}` }),
    close: () => publisher.close(),
  };
}
