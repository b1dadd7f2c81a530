import { randomUUID } from 'node:crypto';
import { PAGE_LIMIT, WEBHOOK_ENDPOINT_LIMITS, isUuid } from '@feedback/contracts';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import type { RpcCall } from '@feedback/messaging';
import { decodeKeysetCursor, encodeKeysetCursor, postgresErrorCode } from '@feedback/database';
import type { EventName } from '@feedback/contracts';
import type { PrismaClient, WebhookEndpoint } from '../generated/prisma/client.js';
import type { EndpointUrlPolicy } from '../outbound/endpoint-url-policy.js';
import { generateSigningSecret } from './signing-secrets.js';
import type { SecretBox } from './signing-secrets.js';
import { fitToPlan, lockTeamEndpoints, planLimitReached, planOf } from './team-plans.js';

type Owner = RpcRequest<'webhook-worker.listEndpoints'>['owner'];

/** Attempts and successes of the last day, from the hourly counts. */
interface DayCounts {
  attempts: number;
  succeeded: number;
}

/** Why an endpoint is paused, as answered: a reason not known here counts as failing, the service's own. */
const pauseReason = (stored: string | null): 'member' | 'failing' | 'plan' => (stored === 'member' || stored === 'plan' ? stored : 'failing');

export const endpointView = (endpoint: WebhookEndpoint, day: DayCounts = { attempts: 0, succeeded: 0 }) => ({
  id: endpoint.id,
  app_id: endpoint.appId,
  name: endpoint.name,
  url: endpoint.url,
  events: endpoint.events as EventName[],
  created_at: endpoint.createdAt.toISOString(),
  updated_at: endpoint.updatedAt.toISOString(),
  health: {
    last_success_at: endpoint.lastSuccessAt?.toISOString() ?? null,
    failing_since: endpoint.failingSince?.toISOString() ?? null,
    attempts_last_day: day.attempts,
    success_rate_last_day: day.attempts === 0 ? null : Math.round((day.succeeded / day.attempts) * 1000) / 1000,
  },
  pause: endpoint.pausedAt
    ? { paused_at: endpoint.pausedAt.toISOString(), reason: pauseReason(endpoint.pausedReason), paused_by: endpoint.pausedBy }
    : null,
});

/**
 * Endpoints as answered, each with its health over the last day: the hourly counts of the last
 * 24 hours, read in one query for the lot.
 */
export async function endpointViews(prisma: PrismaClient, endpoints: WebhookEndpoint[]): Promise<Array<ReturnType<typeof endpointView>>> {
  if (endpoints.length === 0) return [];
  const counts = await prisma.endpointAttemptCount.groupBy({
    by: ['endpointId'],
    where: { endpointId: { in: endpoints.map((endpoint) => endpoint.id) }, hour: { gt: new Date(Date.now() - 24 * 3_600_000) } },
    _sum: { attempts: true, succeeded: true },
  });
  const byEndpoint = new Map(counts.map((row) => [row.endpointId, { attempts: row._sum.attempts ?? 0, succeeded: row._sum.succeeded ?? 0 }]));
  return endpoints.map((endpoint) => endpointView(endpoint, byEndpoint.get(endpoint.id)));
}

export async function endpointViewOf(prisma: PrismaClient, endpoint: WebhookEndpoint): Promise<ReturnType<typeof endpointView>> {
  return (await endpointViews(prisma, [endpoint]))[0]!;
}

/** The endpoint, if it belongs to the owner's app; not_found otherwise. */
export async function findOwnedEndpoint(prisma: PrismaClient, owner: Owner, endpointId: string, options: { listenSessions?: boolean } = {}): Promise<WebhookEndpoint> {
  // A `listen` session's endpoint shows its history, and nothing else: it is not edited, paused or recovered.
  const endpoint = await prisma.webhookEndpoint.findFirst({
    where: { id: endpointId, teamId: owner.team_id, appId: owner.app_id, ...(options.listenSessions ? {} : { listenSession: false }) },
  });
  if (!endpoint) throw new RpcError('not_found', 'No such webhook endpoint for this app.');
  return endpoint;
}

/**
 * An update or deletion of an endpoint found a moment before, which another request deleted
 * meanwhile (Prisma's P2025): answered as if it had gone before, not as a failure.
 */
function deletedMeanwhile(error: unknown): never {
  if ((error as { code?: unknown }).code === 'P2025') throw new RpcError('not_found', 'No such webhook endpoint for this app.');
  throw error;
}

/** An endpoint id a cursor may hold. */
const isUuidText = (id: unknown): id is string => typeof id === 'string' && isUuid(id);

/** PostgreSQL's lock_not_available. */
const isLockTimeout = (error: unknown) => postgresErrorCode(error) === '55P03';

/** Endpoint management, answered over RPC for the dashboard (through the api). */
export function endpointCommands(prisma: PrismaClient, secrets: SecretBox, urls: EndpointUrlPolicy) {
  const owned = (owner: Owner, endpointId: string) => findOwnedEndpoint(prisma, owner, endpointId);

  return {
    async create(request: RpcRequest<'webhook-worker.createEndpoint'>, call: RpcCall): Promise<RpcResult<'webhook-worker.createEndpoint'>> {
      // A plan without webhooks is told so before its URL is checked: a DNS lookup, and an error
      // about a URL it could not use anyway.
      const planBefore = await planOf(prisma, request.owner);
      if (WEBHOOK_ENDPOINT_LIMITS[planBefore] === 0) throw planLimitReached(planBefore);
      const url = await urls.check(request.url);
      const secret = generateSigningSecret();
      const endpoint = await prisma.$transaction(async (tx) => {
        // One creation per team at a time, so two concurrent creations cannot both pass the limit.
        // Waiting long for the lock would outlast the dashboard's own time limit, and the endpoint
        // would be created with its secret shown to nobody: better refused, and pressed again.
        await tx.$executeRaw`SET LOCAL lock_timeout = '2s'`;
        await lockTeamEndpoints(tx, request.owner.team_id).catch((error: unknown) => {
          throw isLockTimeout(error) ? new RpcError('service_unavailable', "Another change to this team's webhook endpoints is in progress. Retry shortly.") : error;
        });
        const count = await tx.webhookEndpoint.count({ where: { teamId: request.owner.team_id, listenSession: false } });
        // Read again under the lock, which a plan change heard meanwhile also takes.
        const plan = await planOf(tx, request.owner);
        if (count >= WEBHOOK_ENDPOINT_LIMITS[plan]) throw planLimitReached(plan);
        const id = randomUUID();
        const created = await tx.webhookEndpoint.create({
          data: {
            id,
            teamId: request.owner.team_id,
            appId: request.owner.app_id,
            name: request.name,
            url,
            events: request.events,
            secretEncrypted: secrets.seal(secret, id),
          },
        });
        // The dashboard that gave up told its member the creation failed: committed now, the
        // endpoint would take deliveries signed with a secret nobody saw, and the member would
        // press again and get a second one.
        call.throwIfCallerGone();
        return created;
      });
      return { endpoint: endpointView(endpoint), signing_secret: secret };
    },

    async list({ owner, cursor, limit }: RpcRequest<'webhook-worker.listEndpoints'>): Promise<RpcResult<'webhook-worker.listEndpoints'>> {
      if (cursor === undefined && limit === undefined) {
        // Asked by an api from before the list paged (workers are upgraded first), whose contract
        // refuses a `next_cursor`: answered as then, every endpoint. This api always sends a limit.
        const endpoints = await prisma.webhookEndpoint.findMany({ where: { teamId: owner.team_id, appId: owner.app_id, listenSession: false }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
        return { items: await endpointViews(prisma, endpoints) };
      }
      // Oldest first, from where the previous page ended: that place holds if its endpoint is
      // deleted meanwhile, where a cursor naming the endpoint would have to start again.
      const pageSize = limit ?? PAGE_LIMIT.default;
      const tag = `endpoints:${owner.team_id}:${owner.app_id}`;
      const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor, tag, isUuidText);
      if (cursor !== undefined && !after) throw new RpcError('invalid_cursor', "This cursor is not from this app's list of endpoints; start again without it.");
      const page = await prisma.webhookEndpoint.findMany({
        where: {
          teamId: owner.team_id,
          appId: owner.app_id,
          listenSession: false,
          ...(after ? { OR: [{ createdAt: { gt: after.at } }, { createdAt: after.at, id: { gt: after.id } }] } : {}),
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: pageSize + 1,
      });
      const items = page.slice(0, pageSize);
      const last = items[items.length - 1];
      return { items: await endpointViews(prisma, items), next_cursor: page.length > pageSize && last ? encodeKeysetCursor(tag, last.createdAt, last.id) : null };
    },

    async get(request: RpcRequest<'webhook-worker.getEndpoint'>): Promise<RpcResult<'webhook-worker.getEndpoint'>> {
      return endpointViewOf(prisma, await owned(request.owner, request.endpoint_id));
    },

    async update(request: RpcRequest<'webhook-worker.updateEndpoint'>): Promise<RpcResult<'webhook-worker.updateEndpoint'>> {
      const endpoint = await owned(request.owner, request.endpoint_id);
      // An edit form sends the URL back as it was shown: unchanged, it is not looked up again (a
      // receiver's name briefly not resolving would fail a rename). Connections check it anyway.
      const url = request.url === undefined || request.url === endpoint.url ? undefined : await urls.check(request.url);
      const updated = await prisma.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: {
          ...(request.name !== undefined ? { name: request.name } : {}),
          ...(url !== undefined ? { url } : {}),
          ...(request.events !== undefined ? { events: request.events } : {}),
        },
      }).catch(deletedMeanwhile);
      return endpointViewOf(prisma, updated);
    },

    async remove(request: RpcRequest<'webhook-worker.deleteEndpoint'>): Promise<RpcResult<'webhook-worker.deleteEndpoint'>> {
      const endpoint = await owned(request.owner, request.endpoint_id);
      await prisma
        .$transaction(async (tx) => {
          await lockTeamEndpoints(tx, endpoint.teamId);
          await tx.webhookEndpoint.delete({ where: { id: endpoint.id } });
          // The place it leaves goes to the oldest endpoint the plan paused, if any.
          if ((await tx.webhookEndpoint.count({ where: { teamId: endpoint.teamId, pausedReason: 'plan' } })) > 0) {
            await fitToPlan(tx, endpoint.teamId, await planOf(tx, request.owner));
          }
        })
        .catch(deletedMeanwhile);
      return {};
    },

    async rotateSecret(request: RpcRequest<'webhook-worker.rotateEndpointSecret'>, call: RpcCall): Promise<RpcResult<'webhook-worker.rotateEndpointSecret'>> {
      const endpoint = await owned(request.owner, request.endpoint_id);
      const secret = generateSigningSecret();
      // An attempt reads the secret when its turn comes (AttemptMaker), so the old one is never used again after this.
      const updated = await prisma
        .$transaction(async (tx) => {
          // Only over the secret read above: of two rotations at the same moment (a double click,
          // two members), the second would otherwise replace the secret the first just showed,
          // and a member would deploy a secret that never signs. Compared opened: the re-sealing
          // after a key change stores the same secret anew, which is no rotation.
          const [locked] = await tx.$queryRaw<Array<{ secret_encrypted: string }>>`
            SELECT secret_encrypted FROM webhooks.webhook_endpoints WHERE id = ${endpoint.id}::uuid FOR UPDATE`;
          if (!locked) throw new RpcError('not_found', 'No such webhook endpoint for this app.');
          if (!secrets.holdSameSecret(locked.secret_encrypted, endpoint.secretEncrypted, endpoint.id)) {
            throw new RpcError('secret_rotated_meanwhile', 'The secret was rotated by another request at the same moment; the secret that one showed is the one in use. Rotate again for a new one.');
          }
          const rotated = await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secretEncrypted: secrets.seal(secret, endpoint.id) } });
          // Committed after the dashboard gave up, every delivery from now on would be signed
          // with a secret nobody saw, and the receiver would refuse them all.
          call.throwIfCallerGone();
          return rotated;
        })
        .catch(deletedMeanwhile);
      return { endpoint: await endpointViewOf(prisma, updated), signing_secret: secret };
    },
  };
}
