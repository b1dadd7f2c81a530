import { SIGNATURE_HEADER } from '@feedback/webhook-signature';
import type { ConfirmChannel } from 'amqplib';
import { defineContract, domainEventContract, userErasedContract } from '@feedback/contracts';
import type { DomainEvent, UserErased } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { QUORUM_QUEUE, declareExchanges, startConsumer } from '@feedback/messaging';
import type { Broker, Consumer, TopologyNames } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';
import { ERASED_PAYLOAD } from '../deliveries/erased-payload.js';
import { ERASURE_CLOCK_MARGIN_SQL, eventTimeSql, externalIdSql, userHashSql } from '../deliveries/erased-users.js';
import type { ErasureHashKey } from '../deliveries/erased-users.js';
import type { FanOutResult } from '../deliveries/fan-out.js';
import type { WebhookMetrics } from '../deliveries/webhook-metrics.js';

/** The worker's queue takes every domain event; fan-out to endpoints decides who gets what. */
async function declareDomainEventsQueue(channel: ConfirmChannel, names: TopologyNames): Promise<void> {
  await declareExchanges(channel, names, ['domainEvents']);
  await channel.assertQueue(names.workerDomainEventsQueue, QUORUM_QUEUE);
  await channel.bindQueue(names.workerDomainEventsQueue, names.domainEvents, '#');
}

/** The worker's queue carries product events and the internal erasure event. */
const inboundContract = defineContract('webhook-worker-inbound', {
  oneOf: [domainEventContract.schema, userErasedContract.schema],
} as const);

/**
 * Records an erasure (the delivery pipeline consults it before every attempt), and erases what
 * the worker holds about the user from events written up to it: stored payloads of their
 * deliveries, and the answers receivers gave to them. Deliveries not yet made are withheld.
 * A second erasure of the same user moves the time on, so what they wrote in between goes too.
 */
export async function recordErasure(prisma: PrismaClient, erasure: UserErased, key: ErasureHashKey): Promise<void> {
  const erasedAt = new Date(erasure.created_at);
  // An api of an earlier release names the user by a plain SHA-256, which only the plain match finds.
  const keyed = erasure.hash_key !== undefined;
  await prisma.$executeRaw`
    INSERT INTO webhooks.privacy_erasures (app_id, user_hash, erased_at, keyed) VALUES (${erasure.app_id}, ${erasure.user_hash}, ${erasedAt}, ${keyed})
    ON CONFLICT (app_id, user_hash) DO UPDATE SET erased_at = GREATEST(privacy_erasures.erased_at, EXCLUDED.erased_at)`;
  await awaitDeliveryWriters(prisma);
  const hashOf = (identity: 'author' | 'sender') =>
    keyed ? userHashSql('app_id', externalIdSql('payload', identity), '$4::text[]') : `encode(sha256(convert_to(app_id || ':' || ${externalIdSql('payload', identity)}, 'UTF8')), 'hex')`;
  // Through the app's endpoints (every delivery has one: deleting it deletes them), so the search
  // reads the app's deliveries by the endpoint index rather than the whole table (docs/decisions.md).
  const named = await prisma.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT id FROM webhooks.deliveries
     WHERE endpoint_id IN (SELECT id FROM webhooks.webhook_endpoints WHERE app_id = $1)
       AND app_id = $1
       AND ${eventTimeSql('payload')} <= $3::timestamptz + ${ERASURE_CLOCK_MARGIN_SQL}
       AND $2 IN (${hashOf('author')}, ${hashOf('sender')})`,
    erasure.app_id,
    erasure.user_hash,
    erasedAt,
    ...(keyed ? [key.pads] : []),
  );
  const ids = named.map((row) => row.id);
  if (ids.length === 0) return;
  await prisma.$transaction([
    prisma.delivery.updateMany({ where: { id: { in: ids } }, data: { payload: ERASED_PAYLOAD } }),
    // Held ones too: a Recover would only skip them, and `held` promises it would send them.
    prisma.delivery.updateMany({ where: { id: { in: ids }, status: { in: ['pending', 'retrying', 'held'] } }, data: { status: 'withheld' } }),
    prisma.deliveryAttempt.updateMany({ where: { deliveryId: { in: ids } }, data: { responseBodyStart: null } }),
    // The signature is a MAC of the erased body: whoever holds the secret could test guesses of it.
    prisma.$executeRaw`UPDATE webhooks.delivery_attempts SET request_headers = request_headers - ${SIGNATURE_HEADER}::text WHERE delivery_id = ANY (${ids}::uuid[]) AND request_headers ? ${SIGNATURE_HEADER}::text`,
  ]);
}

/**
 * Returns once every transaction that was writing deliveries when the erasure was recorded has
 * ended: a fan-out under way then (its statement could not see the erasure) has committed its
 * deliveries, so the search that follows finds them; one that starts later sees the erasure and
 * withholds them. Without it, such a delivery kept the user's payload for its whole history.
 *
 * Waits as CREATE INDEX CONCURRENTLY does, without taking a lock: it notes the transactions
 * holding a write lock on the table, and watches their own ids until they are gone. A lock
 * request would queue every later writer (fan-out, records) behind whatever long transaction it
 * waited for. Given up after `timeoutMs`; the erasure, requeued, then runs again.
 */
async function awaitDeliveryWriters(prisma: PrismaClient, timeoutMs = 15_000): Promise<void> {
  const writers = await prisma.$queryRaw<Array<{ transaction: string }>>`
    SELECT virtualtransaction AS transaction FROM pg_locks
    WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND relation = 'webhooks.deliveries'::regclass AND mode = 'RowExclusiveLock' AND granted AND pid <> pg_backend_pid()`;
  const waitingFor = writers.map((writer) => writer.transaction);
  const deadline = Date.now() + timeoutMs;
  // Each look reads the whole lock table: soon at first (a fan-out takes milliseconds), then
  // less often behind a long transaction.
  let pauseMs = 10;
  while (waitingFor.length > 0) {
    const [counted] = await prisma.$queryRaw<Array<{ running: number }>>`
      SELECT count(*)::int AS running FROM pg_locks WHERE locktype = 'virtualxid' AND virtualxid = ANY (${waitingFor}::text[])`;
    const running = counted?.running ?? 0;
    if (running === 0) return;
    if (Date.now() > deadline) throw new Error(`erasure: ${running} transactions writing deliveries did not end within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs = Math.min(pauseMs * 2, 250);
  }
}

export function consumeDomainEvents(options: {
  broker: Broker;
  names: TopologyNames;
  prisma: PrismaClient;
  logger: Logger;
  prefetch: number;
  /** The key erasure events name users with (ERASURE_HASH_KEY). */
  erasureHashKey: ErasureHashKey;
  metrics: WebhookMetrics;
  /** Called with each event, also a redelivered one (then `redelivered`): fan-out and first attempts (see FanOut). */
  fanOut: (event: DomainEvent, redelivered: boolean) => Promise<FanOutResult>;
}): Consumer {
  return startConsumer(options.broker, options.logger, {
    queue: options.names.workerDomainEventsQueue,
    metrics: options.metrics.registry,
    setup: (channel) => declareDomainEventsQueue(channel, options.names),
    prefetch: options.prefetch,
    contract: inboundContract,
    handle: async (message, raw) => {
      if ((message as { event: string }).event === 'privacy.user_erased') {
        const erasure = message as UserErased;
        // Recorded all the same: the error tells the operator, and the erasure keeps its time.
        if (erasure.hash_key !== undefined && erasure.hash_key !== options.erasureHashKey.id) {
          options.logger.error("user erasure named by another ERASURE_HASH_KEY than this worker's: set the same key on the api and the worker, or this erasure matches nothing", { appId: erasure.app_id });
        }
        await recordErasure(options.prisma, erasure, options.erasureHashKey);
        options.logger.info('user erasure recorded', { appId: (message as UserErased).app_id });
        return;
      }
      const event = message as DomainEvent;
      // Also on a redelivery: deliveries not yet attempted are attempted.
      const { first, attempted } = await options.fanOut(event, raw.fields.redelivered);
      options.metrics.events.inc({ outcome: first ? 'new' : 'duplicate' });
      // A new event is routine (debug, like each delivery); a duplicate is worth a line.
      options.logger.log(first ? 'debug' : 'info', first ? 'event received' : 'duplicate event ignored', {
        eventId: event.id,
        event: event.event,
        appId: event.app.id,
        firstAttempts: attempted,
      });
    },
  });
}
