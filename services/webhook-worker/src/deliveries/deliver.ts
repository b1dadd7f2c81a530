import { createHash } from 'node:crypto';
import type { ConsumeMessage } from 'amqplib';
import { deliveryMessageContract } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { ATTEMPT_HEADER, MANUAL_HEADER, declareWebhookTopology, startConsumer } from '@feedback/messaging';
import type { Broker, ConfirmedPublisher, Consumer, WebhookQueueNames } from '@feedback/messaging';
import type { SecretBox } from '../endpoints/signing-secrets.js';
import type { Delivery, PrismaClient } from '../generated/prisma/client.js';
import type { WebhookSender } from '../outbound/webhook-sender.js';
import { signatureHeader } from './signature.js';

export interface DeliverOptions {
  broker: Broker;
  prisma: PrismaClient;
  publisher: ConfirmedPublisher;
  sender: WebhookSender;
  secrets: SecretBox;
  queues: WebhookQueueNames;
  logger: Logger;
  /** Attempts one worker makes at once. Default: 64. */
  prefetch?: number;
  /** Attempts one endpoint may take at once in one worker, so a slow endpoint holds back no other. Default: 8. */
  perEndpointConcurrency?: number;
}

const userHash = (appId: number, externalId: string) => createHash('sha256').update(`${appId}:${externalId}`).digest('hex');

/** Hashes of the end users an envelope names, for the erasure check. */
function namedUsers(delivery: Delivery): string[] {
  const data = (delivery.payload as { data?: { author?: { external_id?: unknown }; sender?: { external_id?: unknown } } }).data ?? {};
  return [data.author?.external_id, data.sender?.external_id]
    .filter((id): id is string => typeof id === 'string')
    .map((id) => userHash(delivery.appId, id));
}

/**
 * Attempts deliveries. Attempt n (1 to 1 + retries) is signed afresh and sent; 2xx is delivered;
 * anything else (another status, a redirect, a connection error, a timeout) fails it. A failed
 * attempt is published to the next retry queue, confirmed, and only then acknowledged; after the
 * last retry the delivery is abandoned and parked in the abandoned queue.
 */
export function consumeDeliveries(options: DeliverOptions): Consumer {
  const { prisma, queues, logger } = options;
  const maxAttempts = 1 + queues.retries.length;
  const perEndpoint = options.perEndpointConcurrency ?? 8;
  const busy = new Map<string, number>();

  async function attempt(message: { delivery_id: string }, raw: ConsumeMessage): Promise<void> {
    const number = Number(raw.properties.headers?.[ATTEMPT_HEADER] ?? 1);
    const manual = raw.properties.headers?.[MANUAL_HEADER] === true;
    const delivery = await prisma.delivery.findUnique({ where: { id: message.delivery_id }, include: { endpoint: true } });
    // Gone (endpoint deleted), settled, or this attempt already made (a duplicate message): nothing to do.
    if (!delivery || ['delivered', 'abandoned', 'withheld'].includes(delivery.status) || delivery.attempts >= number) return;
    const log = logger.child({ deliveryId: delivery.id, endpointId: delivery.endpointId, attempt: number });

    const erased = await prisma.privacyErasure.count({ where: { appId: delivery.appId, userHash: { in: namedUsers(delivery) } } });
    if (erased > 0) {
      await prisma.delivery.update({ where: { id: delivery.id }, data: { status: 'withheld', payload: { erased: true } } });
      log.info('delivery withheld: it names an erased user');
      return;
    }

    const inFlight = busy.get(delivery.endpointId) ?? 0;
    if (inFlight >= perEndpoint) {
      // This endpoint has enough in flight here: the message waits a moment, without an attempt,
      // instead of holding a slot other endpoints' deliveries need.
      await options.publisher.sendToQueue(queues.throttle.queue, message, {
        messageId: delivery.id,
        headers: { [ATTEMPT_HEADER]: number, ...(manual ? { [MANUAL_HEADER]: true } : {}) },
      });
      return;
    }
    busy.set(delivery.endpointId, inFlight + 1);
    try {
      const rawBody = JSON.stringify(delivery.payload);
      const startedAt = new Date();
      const result = await options.sender.send(delivery.endpoint.url, rawBody, {
        'X-Service-Signature': signatureHeader(options.secrets.open(delivery.endpoint.secretEncrypted), rawBody),
        'X-Service-Event': delivery.eventType,
        'X-Service-Delivery': delivery.id,
      });
      const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
      // A redelivery by hand is one attempt; the automatic schedule allows 1 + retries.
      const last = manual || number >= maxAttempts;
      const status = delivered ? 'delivered' : last ? 'abandoned' : 'retrying';
      await prisma.$transaction([
        prisma.deliveryAttempt.createMany({
          data: [{
            deliveryId: delivery.id,
            number,
            startedAt,
            durationMs: result.durationMs,
            responseCode: result.status ?? null,
            error: result.error ?? null,
            responseBodyStart: result.bodyStart ?? null,
          }],
          skipDuplicates: true,
        }),
        prisma.delivery.update({ where: { id: delivery.id }, data: { status, attempts: number, lastResponseCode: result.status ?? null } }),
      ]);
      if (delivered) {
        log.info('delivered', { status: result.status, durationMs: result.durationMs });
      } else if (last) {
        await options.publisher.sendToQueue(queues.abandoned, message, { messageId: delivery.id, headers: { [ATTEMPT_HEADER]: number } });
        log.warn(manual ? 'redelivery failed' : 'delivery abandoned after its last retry', { status: result.status, error: result.error });
      } else {
        const retry = queues.retries[number - 1]!;
        await options.publisher.sendToQueue(retry.queue, message, { messageId: delivery.id, headers: { [ATTEMPT_HEADER]: number + 1 } });
        log.info('attempt failed; retry scheduled', { status: result.status, error: result.error, retryInMs: retry.delay });
      }
    } finally {
      busy.set(delivery.endpointId, (busy.get(delivery.endpointId) ?? 1) - 1);
    }
  }

  return startConsumer(options.broker, logger, {
    queue: queues.deliver,
    setup: (channel) => declareWebhookTopology(channel, queues),
    prefetch: options.prefetch ?? 64,
    contract: deliveryMessageContract,
    handle: attempt,
  });
}
