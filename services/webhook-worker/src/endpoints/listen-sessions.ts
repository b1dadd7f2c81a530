import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { WEBHOOK_ENDPOINT_LIMITS } from '@feedback/contracts';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';
import { LISTEN_URL_PREFIX } from '../outbound/listen-relay.js';
import { generateSigningSecret } from './signing-secrets.js';
import type { SecretBox } from './signing-secrets.js';

/** Listen sessions one team may have open at once: each event fans out to every one of them. */
export const LISTEN_SESSIONS_PER_TEAM = 5;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/**
 * `listen` sessions: an endpoint row without a URL of its own, so that a session's deliveries
 * take the same path as an endpoint's (fan-out, signature, retries, history). It is not listed,
 * counted against the plan, edited, paused or recovered; it ends when the tool disconnects.
 *
 * `listenQueuePrefix` is what every session's queue name starts with (`api.listen.` under the
 * namespace): the worker publishes a session's requests to the queue it names, so a name that is
 * not a session's is refused, whoever asks.
 */
export function listenSessionCommands(prisma: PrismaClient, secrets: SecretBox, logger: Logger, listenQueuePrefix: string) {
  const sessionQueue = new RegExp(`^${escape(listenQueuePrefix)}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`);
  return {
    async open(request: RpcRequest<'webhook-worker.openListenSession'>): Promise<RpcResult<'webhook-worker.openListenSession'>> {
      if (WEBHOOK_ENDPOINT_LIMITS[request.owner.plan] === 0) {
        throw new RpcError('plan_limit_reached', 'Webhooks are not included in the Free plan. Upgrade to Starter or Pro.');
      }
      if (!sessionQueue.test(request.queue)) throw new RpcError('contract_violation', 'queue is not a listen session\'s queue.');
      const secret = generateSigningSecret();
      const id = randomUUID();
      const endpoint = await prisma.$transaction(async (tx) => {
        // The team's sessions counted under the lock endpoint creation takes, so two opens at once cannot pass the cap together.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`endpoints:${request.owner.team_id}`}))`;
        const open = await tx.webhookEndpoint.count({ where: { teamId: request.owner.team_id, listenSession: true, endedAt: null } });
        if (open >= LISTEN_SESSIONS_PER_TEAM) {
          throw new RpcError('plan_limit_reached', `A team may have ${LISTEN_SESSIONS_PER_TEAM} listen sessions open at once. End one first.`);
        }
        return tx.webhookEndpoint.create({
          data: {
            id,
            teamId: request.owner.team_id,
            appId: request.owner.app_id,
            name: `listen: ${request.member_name}`.slice(0, 100),
            url: `${LISTEN_URL_PREFIX}${request.queue}`,
            events: request.events,
            // Bound to this session: its plaintext is the developer's, so the sealed value must open nowhere else.
            secretEncrypted: secrets.seal(secret, id),
            listenSession: true,
          },
        });
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
