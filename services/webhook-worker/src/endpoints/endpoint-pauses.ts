import type pg from 'pg';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { PrismaClient } from '../generated/prisma/client.js';
import { CANCEL_RECOVERY_SQL, writeAudit } from './endpoint-audit.js';
import { endpointViewOf, findOwnedEndpoint } from './endpoint-commands.js';
import { lockTeamEndpoints, planOf, refuseBeyondPlan } from './team-plans.js';

/** Audit entries the app's list shows: the latest ones. */
const AUDIT_LENGTH = 500;

// Every endpoint whose attempts have all failed for the pause period, and failed in the last day
// too, is paused, with its audit entry and its running recovery ended, in one statement. `listen`
// sessions are never paused.
const PAUSE_FAILING_SQL = `
  WITH paused AS (
    UPDATE webhooks.webhook_endpoints
    SET paused_at = now(), paused_reason = 'failing', paused_by = NULL
    WHERE failing_since IS NOT NULL AND paused_at IS NULL AND NOT listen_session
      AND failing_since < now() - make_interval(secs => $1)
      -- Still being tried and failing: one failure long ago, then silence, holds nothing worth pausing for.
      AND EXISTS (SELECT 1 FROM webhooks.endpoint_attempt_counts c
                  WHERE c.endpoint_id = webhook_endpoints.id AND c.hour > now() - interval '1 day' AND c.attempts > c.succeeded)
    RETURNING id, app_id, name, failing_since
  ), audited AS (
    INSERT INTO webhooks.endpoint_audit_entries (id, app_id, endpoint_id, endpoint_name, action, actor_name, detail)
    SELECT gen_random_uuid(), app_id, id, name, 'paused', NULL,
           'Every attempt has failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '.'
    FROM paused
  ), stopped AS (
    ${CANCEL_RECOVERY_SQL('ANY (SELECT id FROM paused)')}
  )
  SELECT id, app_id FROM paused`;

/**
 * Pauses every endpoint that has failed for `pauseAfterSeconds` without a success. Answers the
 * endpoints paused now. Every worker may run it: an endpoint is paused once, by whichever
 * statement updates it first.
 */
export async function pauseFailingEndpoints(pool: pg.Pool, pauseAfterSeconds: number): Promise<Array<{ id: string; appId: number }>> {
  const { rows } = await pool.query<{ id: string; app_id: number }>(PAUSE_FAILING_SQL, [pauseAfterSeconds]);
  return rows.map((row) => ({ id: row.id, appId: row.app_id }));
}

/** How many endpoints are paused now, for the metric. */
export async function countPausedEndpoints(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ paused: number }>('SELECT count(*)::int AS paused FROM webhooks.webhook_endpoints WHERE paused_at IS NOT NULL');
  return rows[0]?.paused ?? 0;
}

/** Pause and Resume by hand, and the app's webhook audit, answered over RPC for the dashboard. */
export function pauseCommands(prisma: PrismaClient, logger: Logger) {
  return {
    async pause(request: RpcRequest<'webhook-worker.pauseEndpoint'>): Promise<RpcResult<'webhook-worker.pauseEndpoint'>> {
      const endpoint = await findOwnedEndpoint(prisma, request.owner, request.endpoint_id);
      const paused = await prisma.$transaction(async (tx) => {
        // Only one that is not paused: pressed twice, or paused by the service meanwhile, it stays as it is.
        const { count } = await tx.webhookEndpoint.updateMany({
          where: { id: endpoint.id, pausedAt: null },
          data: { pausedAt: new Date(), pausedReason: 'member', pausedBy: request.member_name },
        });
        if (count === 1) {
          await writeAudit(tx, { appId: endpoint.appId, endpointId: endpoint.id, endpointName: endpoint.name, action: 'paused', actorName: request.member_name, detail: 'Paused by hand.' });
          await tx.$executeRawUnsafe(CANCEL_RECOVERY_SQL('$1::uuid'), endpoint.id);
          logger.info('endpoint paused by a member', { endpointId: endpoint.id });
        }
        return tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      });
      return endpointViewOf(prisma, paused);
    },

    async resume(request: RpcRequest<'webhook-worker.resumeEndpoint'>): Promise<RpcResult<'webhook-worker.resumeEndpoint'>> {
      const endpoint = await findOwnedEndpoint(prisma, request.owner, request.endpoint_id);
      const resumed = await prisma.$transaction(async (tx) => {
        // An endpoint the plan leaves out stays paused, whatever paused it: under the team's lock,
        // which a plan change also takes.
        if (endpoint.pausedAt) {
          await lockTeamEndpoints(tx, endpoint.teamId);
          await refuseBeyondPlan(tx, endpoint, await planOf(tx, request.owner));
        }
        // Its failing starts afresh: the next failure after resuming starts the pause period again.
        const { count } = await tx.webhookEndpoint.updateMany({
          where: { id: endpoint.id, pausedAt: { not: null } },
          data: { pausedAt: null, pausedReason: null, pausedBy: null, failingSince: null },
        });
        if (count === 1) {
          const held = await tx.delivery.count({ where: { endpointId: endpoint.id, status: 'held' } });
          await writeAudit(tx, {
            appId: endpoint.appId,
            endpointId: endpoint.id,
            endpointName: endpoint.name,
            action: 'resumed',
            actorName: request.member_name,
            detail: held === 0 ? 'No delivery was held.' : `${held} held deliveries wait for a Recover.`,
          });
          logger.info('endpoint resumed', { endpointId: endpoint.id, held });
        }
        return tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      });
      return endpointViewOf(prisma, resumed);
    },

    async audit(request: RpcRequest<'webhook-worker.listWebhookAudit'>): Promise<RpcResult<'webhook-worker.listWebhookAudit'>> {
      // The app is the team's (the authority checked it); its entries outlive deleted endpoints.
      const entries = await prisma.endpointAuditEntry.findMany({ where: { appId: request.owner.app_id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: AUDIT_LENGTH });
      return {
        items: entries.map((entry) => ({
            id: entry.id,
            endpoint_id: entry.endpointId,
            endpoint_name: entry.endpointName,
            action: entry.action as 'paused',
            actor: entry.actorName,
            detail: entry.detail,
          created_at: entry.createdAt.toISOString(),
        })),
      };
    },
  };
}
