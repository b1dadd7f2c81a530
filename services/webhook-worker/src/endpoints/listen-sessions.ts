import type pg from 'pg';
import { WEBHOOK_ENDPOINT_LIMITS } from '@feedback/contracts';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';
import { LISTEN_URL_PREFIX } from '../outbound/listen-relay.js';
import { generateSigningSecret } from './signing-secrets.js';
import type { SecretBox } from './signing-secrets.js';

/**
 * `listen` sessions: an endpoint row without a URL of its own, so that a session's deliveries
 * take the same path as an endpoint's (fan-out, signature, retries, history). It is not listed,
 * counted against the plan, edited, paused or recovered; it ends when the tool disconnects.
 */
export function listenSessionCommands(prisma: PrismaClient, secrets: SecretBox, logger: Logger) {
  return {
    async open(request: RpcRequest<'webhook-worker.openListenSession'>): Promise<RpcResult<'webhook-worker.openListenSession'>> {
      if (WEBHOOK_ENDPOINT_LIMITS[request.owner.plan] === 0) {
        throw new RpcError('plan_limit_reached', 'Webhooks are not included in the Free plan. Upgrade to Starter or Pro.');
      }
      const secret = generateSigningSecret();
      const endpoint = await prisma.webhookEndpoint.create({
        data: {
          teamId: request.owner.team_id,
          appId: request.owner.app_id,
          name: `listen: ${request.member_name}`.slice(0, 100),
          url: `${LISTEN_URL_PREFIX}${request.queue}`,
          events: request.events,
          secretEncrypted: secrets.seal(secret),
          listenSession: true,
        },
      });
      logger.info('listen session opened', { endpointId: endpoint.id, appId: request.owner.app_id });
      return { endpoint_id: endpoint.id, signing_secret: secret };
    },

    async close(request: RpcRequest<'webhook-worker.closeListenSession'>): Promise<RpcResult<'webhook-worker.closeListenSession'>> {
      const { count } = await prisma.webhookEndpoint.updateMany({
        where: { id: request.endpoint_id, teamId: request.owner.team_id, appId: request.owner.app_id, listenSession: true, endedAt: null },
        data: { endedAt: new Date() },
      });
      if (count > 0) logger.info('listen session ended', { endpointId: request.endpoint_id });
      return {};
    },
  };
}

/** Ends the session whose queue is gone: its api instance died without closing it. */
export async function endListenSessionOfQueue(pool: pg.Pool, queue: string): Promise<void> {
  await pool.query(
    'UPDATE webhooks.webhook_endpoints SET ended_at = now() WHERE listen_session AND ended_at IS NULL AND url = $1',
    [`${LISTEN_URL_PREFIX}${queue}`],
  );
}

/** Deletes ended sessions, with their history, once the history's retention has passed. */
export async function pruneEndedListenSessions(pool: pg.Pool, retentionDays: number): Promise<number> {
  const { rowCount } = await pool.query(
    'DELETE FROM webhooks.webhook_endpoints WHERE listen_session AND ended_at < now() - make_interval(days => $1)',
    [retentionDays],
  );
  return rowCount ?? 0;
}
