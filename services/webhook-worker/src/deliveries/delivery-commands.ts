import { randomUUID } from 'node:crypto';
import { PAGE_LIMIT, isUuid } from '@feedback/contracts';
import type { RpcRequest, RpcResult } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import { ATTEMPT_HEADER, MANUAL_HEADER } from '../queues/webhook-topology.js';
import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher, RpcCall } from '@feedback/messaging';
import type { WebhookQueueNames } from '../queues/webhook-topology.js';
import type { Delivery, DeliveryAttempt, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { findOwnedEndpoint } from '../endpoints/endpoint-commands.js';
import { isErasedPayload } from './erased-payload.js';

type Owner = RpcRequest<'webhook-worker.listDeliveries'>['owner'];

export const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  event: delivery.eventType,
  event_id: delivery.eventId,
  status: delivery.status,
  attempts: delivery.attempts,
  last_response_code: delivery.lastResponseCode,
  created_at: delivery.createdAt.toISOString(),
  updated_at: delivery.updatedAt.toISOString(),
});

/** Attempts a delivery's detail shows at most. */
const ATTEMPT_LOG_LENGTH = 100;

const attemptView = (attempt: DeliveryAttempt) => ({
  number: attempt.number,
  started_at: attempt.startedAt.toISOString(),
  duration_ms: attempt.durationMs,
  response_code: attempt.responseCode,
  error: attempt.error,
  response_body_start: attempt.responseBodyStart,
  // Attempts recorded before requests were kept have none.
  request: attempt.requestUrl === null ? null : { url: attempt.requestUrl, headers: (attempt.requestHeaders ?? {}) as Record<string, string> },
});

/**
 * Test deliveries of one endpoint still waiting or being retried: Send test refuses more, so a
 * button pressed again and again cannot queue pings retried for hours.
 */
const MAX_TEST_DELIVERIES_IN_PROGRESS = 5;

/** The longest a redelivery waits for the broker to confirm its attempt is queued. */
const REDELIVERY_CONFIRM_MS = 5_000;

/** Send test, delivery history and redelivery, answered over RPC for the dashboard. */
export function deliveryCommands(prisma: PrismaClient, publisher: ConfirmedPublisher, queues: WebhookQueueNames, logger: Logger) {
  const ownedEndpoint = (owner: Owner, endpointId: string) => findOwnedEndpoint(prisma, owner, endpointId);
  // A `listen` session's history is read like an endpoint's.
  const historyOf = (owner: Owner, endpointId: string) => findOwnedEndpoint(prisma, owner, endpointId, { listenSessions: true });
  async function ownedDelivery(owner: Owner, endpointId: string, deliveryId: string, read = false) {
    await (read ? historyOf : ownedEndpoint)(owner, endpointId);
    const delivery = await prisma.delivery.findFirst({ where: { id: deliveryId, endpointId } });
    if (!delivery) throw new RpcError('not_found', 'No such delivery for this endpoint.');
    return delivery;
  }
  // A publish the broker did not confirm (away, or slow) is the member's to press again later:
  // answered 503 with Retry-After, as a service that did not answer, not 500.
  const queue = (id: string, attempt: number, manual = false, timeoutMs?: number) =>
    publisher
      .sendToQueue(queues.deliver, { delivery_id: id }, {
        messageId: id,
        headers: { [ATTEMPT_HEADER]: attempt, ...(manual ? { [MANUAL_HEADER]: true } : {}) },
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      })
      .catch((error: unknown) => {
        logger.warn('a delivery from the dashboard could not be queued', { deliveryId: id, error });
        throw new RpcError('service_unavailable', 'The delivery could not be queued; nothing was sent. Retry shortly.');
      });

  return {
    /** A webhook.ping for this endpoint alone, on the usual schedule; author and sender are the member who pressed Send test. */
    async sendTest(request: RpcRequest<'webhook-worker.sendTest'>): Promise<RpcResult<'webhook-worker.sendTest'>> {
      const endpoint = await ownedEndpoint(request.owner, request.endpoint_id);
      const id = randomUUID();
      const member = { external_id: null, name: request.member_name };
      const envelope = {
        id,
        event: 'webhook.ping',
        created_at: new Date().toISOString(),
        app: { id: request.owner.app_id, public_key: request.public_key },
        data: {
          endpoint_id: endpoint.id,
          message: 'A test delivery from the dashboard. If you can read this, your endpoint works.',
          author: member,
          sender: { type: 'member', ...member },
        },
      };
      // Counted and created under a lock on the endpoint's tests, so presses at the same moment
      // cannot all pass the count.
      const delivery = await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`tests:${endpoint.id}`}))`;
        // The event type written out, so the planner matches the index of test deliveries
        // (deliveries_pings_by_endpoint_idx) rather than read the endpoint's whole history.
        const [counted] = await tx.$queryRaw<Array<{ in_progress: number }>>`
          SELECT count(*)::int AS in_progress FROM webhooks.deliveries
          WHERE endpoint_id = ${endpoint.id}::uuid AND event_type = 'webhook.ping' AND status IN ('pending', 'retrying')`;
        const inProgress = counted?.in_progress ?? 0;
        if (inProgress >= MAX_TEST_DELIVERIES_IN_PROGRESS) {
          throw new RpcError(
            'too_many_test_deliveries',
            `This endpoint already has ${inProgress} test deliveries waiting or being retried; their history shows why. Send another once one has settled.`,
          );
        }
        return tx.delivery.create({
          data: { id, endpointId: endpoint.id, eventId: randomUUID(), eventType: 'webhook.ping', appId: request.owner.app_id, payload: envelope as Prisma.InputJsonValue },
        });
      });
      try {
        // A first attempt like any delivery's: a failed one schedules the retries (specification
        // section 3 puts no condition on that), so a ping also shows the schedule working.
        await queue(id, 1);
      } catch (error) {
        // Never sent: it would stay pending in the history. The member sees the error and presses again.
        await prisma.delivery.delete({ where: { id } }).catch(() => undefined);
        throw error;
      }
      return deliveryView(delivery);
    },

    async listDeliveries(request: RpcRequest<'webhook-worker.listDeliveries'>): Promise<RpcResult<'webhook-worker.listDeliveries'>> {
      await historyOf(request.owner, request.endpoint_id);
      const limit = request.limit ?? PAGE_LIMIT.default;
      // The cursor is the last delivery of the previous page, and the next page is what sorts
      // after it: by time, and by id among deliveries fanned out in the same millisecond (paging by
      // time alone skipped them). Compared by hand rather than with Prisma's cursor, which skips
      // one row too many once the cursor no longer matches the filter (its status changed since).
      const { cursor } = request;
      let after: Prisma.DeliveryWhereInput = {};
      if (cursor !== undefined) {
        const last = isUuid(cursor) ? await prisma.delivery.findFirst({ where: { id: cursor, endpointId: request.endpoint_id }, select: { createdAt: true } }) : null;
        if (!last) throw new RpcError('invalid_cursor', 'This cursor is not from this endpoint\'s delivery history; start again without it.');
        // The plain bound is where the index walk starts (PostgreSQL cannot start one from the OR):
        // without it each page read the endpoint's history from its newest delivery down.
        after = { createdAt: { lte: last.createdAt }, OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: cursor } }] };
      }
      const page = await prisma.delivery.findMany({
        where: {
          endpointId: request.endpoint_id,
          ...(request.status ? { status: { in: [...request.status] } } : {}),
          ...(request.event ? { eventType: { in: [...request.event] } } : {}),
          ...after,
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const items = page.slice(0, limit);
      return { items: items.map(deliveryView), next_cursor: page.length > limit ? items[items.length - 1]!.id : null };
    },

    async getDelivery(request: RpcRequest<'webhook-worker.getDelivery'>): Promise<RpcResult<'webhook-worker.getDelivery'>> {
      const delivery = await ownedDelivery(request.owner, request.endpoint_id, request.delivery_id, true);
      // The latest ones: each redelivery by hand adds one, and a delivery redelivered in a loop
      // would otherwise make this answer grow without end. Its `attempts` says how many in all.
      const latest = await prisma.deliveryAttempt.findMany({ where: { deliveryId: delivery.id }, orderBy: { number: 'desc' }, take: ATTEMPT_LOG_LENGTH });
      // The body as sent, byte for byte: the stored envelope's text, which every attempt sends.
      // An erasure replaced it, and then nothing of it is shown.
      const [stored] = await prisma.$queryRaw<Array<{ body: string }>>`SELECT payload::text AS body FROM webhooks.deliveries WHERE id = ${delivery.id}::uuid`;
      const requestBody = stored === undefined || isErasedPayload(delivery.payload) ? null : stored.body;
      return { delivery: deliveryView(delivery), request_body: requestBody, attempt_log: latest.reverse().map(attemptView) };
    },

    /**
     * One more attempt with the same id, for a delivery that has settled (delivered, abandoned or cancelled).
     * Under the delivery's row lock, the attempt is queued (confirmed) and the delivery marked
     * pending in one transaction: a publish that fails leaves it as it was, a second press waits
     * and finds it in progress, and the worker's record or withhold of that attempt (an update of
     * the same row) lands after the commit, never before it.
     *
     * The broker's confirm is awaited for less than the transaction may last and the caller waits.
     * One that comes too late does not take the message back: the deliver consumer makes the
     * attempt only once this transaction has committed (`redeliveryCommitted`).
     */
    async redeliver(request: RpcRequest<'webhook-worker.redeliver'>, call: RpcCall): Promise<RpcResult<'webhook-worker.redeliver'>> {
      const { id } = await ownedDelivery(request.owner, request.endpoint_id, request.delivery_id);
      const confirmWithinMs = Math.max(100, Math.min(REDELIVERY_CONFIRM_MS, call.remainingMs() - 1_000));
      const updated = await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT 1 FROM webhooks.deliveries WHERE id = ${id}::uuid FOR UPDATE`;
        const delivery = await tx.delivery.findUnique({ where: { id } });
        // Deleted since it was looked up: its history outlived DELIVERY_HISTORY_RETENTION_DAYS.
        if (!delivery) throw new RpcError('not_found', 'No such delivery for this endpoint.');
        // Erased after it was sent: what is stored is no longer the envelope.
        if (delivery.status === 'withheld' || isErasedPayload(delivery.payload)) {
          throw new RpcError('delivery_withheld', 'This delivery names an erased user; it is never sent again.');
        }
        if (delivery.status === 'pending' || delivery.status === 'retrying') {
          throw new RpcError('delivery_in_progress', 'This delivery is still being attempted; redeliver it once it has settled.');
        }
        await queue(id, delivery.attempts + 1, true, confirmWithinMs);
        return tx.delivery.update({ where: { id }, data: { status: 'pending' } });
        // Room for the lock, the reads and the update around the publish.
      }, { timeout: confirmWithinMs + 3_000 });
      return deliveryView(updated);
    },
  };
}
