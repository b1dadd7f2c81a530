import { randomUUID } from 'node:crypto';
import { isUuid } from '@feedback/contracts';
import type { RECOVERABLE_STATUSES, RpcRequest, RpcResult } from '@feedback/contracts';
import { postgresErrorCode } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient, Recovery } from '../generated/prisma/client.js';
import { findOwnedEndpoint } from '../endpoints/endpoint-commands.js';
import { writeAudit } from '../endpoints/endpoint-audit.js';

/** Recoveries an endpoint's list shows: the latest ones. */
const RECOVERIES_LISTED = 20;

/** What a Recover redelivers unless told: what failed for good, and what a pause held. */
const DEFAULT_STATUSES = ['abandoned', 'held'] as const;

export const recoveryView = (recovery: Recovery) => ({
  id: recovery.id,
  endpoint_id: recovery.endpointId,
  since: recovery.since.toISOString(),
  until: recovery.until?.toISOString() ?? null,
  statuses: recovery.statuses as Array<(typeof RECOVERABLE_STATUSES)[number]>,
  events: recovery.events.length === 0 ? null : (recovery.events as never[]),
  state: recovery.state as 'running' | 'finished' | 'cancelled',
  total: recovery.total,
  delivered: recovery.delivered,
  failed: recovery.failed,
  skipped: recovery.skipped,
  remaining: Math.max(0, recovery.total - recovery.delivered - recovery.failed - recovery.skipped),
  started_by: recovery.startedBy,
  created_at: recovery.createdAt.toISOString(),
  ended_at: recovery.endedAt?.toISOString() ?? null,
});

/** Start, list, read and cancel recoveries, answered over RPC for the dashboard. */
export function recoveryCommands(prisma: PrismaClient, logger: Logger, wake: () => void) {
  async function ownedRecovery(owner: RpcRequest<'webhook-worker.getRecovery'>['owner'], endpointId: string, recoveryId: string) {
    await findOwnedEndpoint(prisma, owner, endpointId);
    const recovery = isUuid(recoveryId) ? await prisma.recovery.findFirst({ where: { id: recoveryId, endpointId } }) : null;
    if (!recovery) throw new RpcError('not_found', 'No such recovery for this endpoint.');
    return recovery;
  }

  return {
    /**
     * Chooses the deliveries now, in the order they were made, so that a delivery made or failing
     * after the start is not taken, and each chosen one is attempted once however often the
     * driver stops and starts again.
     */
    async start(request: RpcRequest<'webhook-worker.startRecovery'>): Promise<RpcResult<'webhook-worker.startRecovery'>> {
      const endpoint = await findOwnedEndpoint(prisma, request.owner, request.endpoint_id);
      if (endpoint.pausedAt) throw new RpcError('endpoint_paused', 'This endpoint is paused: resume it first, then Recover sends what was held.');
      const since = new Date(request.since);
      const until = request.until ? new Date(request.until) : null;
      if (until && until <= since) throw new RpcError('validation_failed', '`until` must come after `since`.');
      const statuses = [...(request.statuses ?? DEFAULT_STATUSES)];
      const events = [...(request.events ?? [])];
      const id = randomUUID();
      let recovery: Recovery;
      try {
        recovery = await prisma.$transaction(async (tx) => {
          // The endpoint read again under a lock a pause also takes: one that paused since is refused here.
          const [locked] = await tx.$queryRaw<Array<{ paused: boolean }>>`SELECT paused_at IS NOT NULL AS paused FROM webhooks.webhook_endpoints WHERE id = ${endpoint.id}::uuid FOR SHARE`;
          if (locked?.paused) throw new RpcError('endpoint_paused', 'This endpoint is paused: resume it first, then Recover sends what was held.');
          await tx.recovery.create({
            data: { id, endpointId: endpoint.id, appId: endpoint.appId, since, until, statuses, events, total: 0, startedBy: request.member_name },
          });
          const total = await tx.$executeRaw`
            INSERT INTO webhooks.recovery_items (recovery_id, delivery_id, position)
            SELECT ${id}::uuid, d.id, row_number() OVER (ORDER BY d.created_at, d.id)
            FROM webhooks.deliveries d
            WHERE d.endpoint_id = ${endpoint.id}::uuid AND d.created_at >= ${since}
              AND (${until}::timestamptz IS NULL OR d.created_at < ${until}::timestamptz)
              AND d.status::text = ANY (${statuses}::text[])
              AND (cardinality(${events}::text[]) = 0 OR d.event_type = ANY (${events}::text[]))`;
          const started = await tx.recovery.update({
            where: { id },
            data: { total, ...(total === 0 ? { state: 'finished', endedAt: new Date() } : {}) },
          });
          await writeAudit(tx, {
            appId: endpoint.appId,
            endpointId: endpoint.id,
            endpointName: endpoint.name,
            action: 'recovery_started',
            actorName: request.member_name,
            detail: `${total} ${total === 1 ? 'delivery' : 'deliveries'} since ${since.toISOString()} (${statuses.join(', ')}).`,
          });
          return started;
          // Choosing tens of thousands of deliveries takes a moment.
        }, { timeout: 8_000 });
      } catch (error) {
        if (postgresErrorCode(error) === '23505' || (error as { code?: string }).code === 'P2002') {
          throw new RpcError('recovery_in_progress', 'A recovery of this endpoint is running: wait for it to end, or cancel it first.');
        }
        throw error;
      }
      logger.info('recovery started', { recoveryId: id, endpointId: endpoint.id, total: recovery.total });
      wake();
      return recoveryView(recovery);
    },

    async list(request: RpcRequest<'webhook-worker.listRecoveries'>): Promise<RpcResult<'webhook-worker.listRecoveries'>> {
      const endpoint = await findOwnedEndpoint(prisma, request.owner, request.endpoint_id);
      const recoveries = await prisma.recovery.findMany({ where: { endpointId: endpoint.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: RECOVERIES_LISTED });
      return { items: recoveries.map(recoveryView) };
    },

    async get(request: RpcRequest<'webhook-worker.getRecovery'>): Promise<RpcResult<'webhook-worker.getRecovery'>> {
      return recoveryView(await ownedRecovery(request.owner, request.endpoint_id, request.recovery_id));
    },

    /** Nothing more is queued; the few attempts already queued still go. */
    async cancel(request: RpcRequest<'webhook-worker.cancelRecovery'>): Promise<RpcResult<'webhook-worker.cancelRecovery'>> {
      const recovery = await ownedRecovery(request.owner, request.endpoint_id, request.recovery_id);
      const cancelled = await prisma.$transaction(async (tx) => {
        const { count } = await tx.recovery.updateMany({ where: { id: recovery.id, state: 'running' }, data: { state: 'cancelled', endedAt: new Date() } });
        if (count === 0) throw new RpcError('recovery_ended', 'This recovery has ended already.');
        const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: recovery.endpointId } });
        await writeAudit(tx, { appId: endpoint.appId, endpointId: endpoint.id, endpointName: endpoint.name, action: 'recovery_cancelled', actorName: request.member_name });
        return tx.recovery.findUniqueOrThrow({ where: { id: recovery.id } });
      });
      logger.info('recovery cancelled', { recoveryId: recovery.id });
      return recoveryView(cancelled);
    },
  };
}
