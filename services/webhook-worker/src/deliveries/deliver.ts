import type { ConsumeMessage } from 'amqplib';
import { deliveryMessageContract } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign } from '@feedback/webhook-signature';
import { ATTEMPT_HEADER, MANUAL_HEADER, declareWebhookTopology, startConsumer } from '@feedback/messaging';
import type { Broker, ConfirmedPublisher, Consumer, WebhookQueueNames } from '@feedback/messaging';
import type { SecretBox } from '../endpoints/signing-secrets.js';
import type { WebhookSender } from '../outbound/webhook-sender.js';
import type { AttemptStore } from './attempt-store.js';

export interface DeliverOptions {
  broker: Broker;
  store: AttemptStore;
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

/**
 * Attempts deliveries. Attempt n (1 to 1 + retries) is signed afresh and sent; 2xx is delivered;
 * anything else (another status, a redirect, a connection error, a timeout) fails it. A failed
 * attempt is published to the next retry queue, confirmed, and only then acknowledged; after the
 * last retry the delivery is abandoned and parked in the abandoned queue.
 */
export function consumeDeliveries(options: DeliverOptions): Consumer {
  const { store, queues, logger } = options;
  const maxAttempts = 1 + queues.retries.length;
  const perEndpoint = options.perEndpointConcurrency ?? 8;
  const busy = new Map<string, number>();

  /**
   * What follows recorded attempt `number`, confirmed before the message is acknowledged: a
   * failure with retries left goes to the next retry queue; an abandoned delivery is parked for
   * operators.
   */
  async function followUp(status: string, message: { delivery_id: string }, deliveryId: string, number: number): Promise<void> {
    if (status === 'retrying') {
      const retry = queues.retries[number - 1]!;
      await options.publisher.sendToQueue(retry.queue, message, { messageId: deliveryId, headers: { [ATTEMPT_HEADER]: number + 1 } });
    } else if (status === 'abandoned') {
      await options.publisher.sendToQueue(queues.abandoned, message, { messageId: deliveryId, headers: { [ATTEMPT_HEADER]: number } });
    }
  }

  async function attempt(message: { delivery_id: string }, raw: ConsumeMessage): Promise<void> {
    const number = Number(raw.properties.headers?.[ATTEMPT_HEADER] ?? 1);
    const manual = raw.properties.headers?.[MANUAL_HEADER] === true;
    const delivery = await store.load(message.delivery_id);
    // Gone: its endpoint was deleted.
    if (!delivery) return;
    if (delivery.attempts >= number) {
      // This attempt is already recorded. Redelivered by the broker, the message was left by a
      // worker that lost its broker connection (or died) between recording the attempt and the
      // confirm of what follows it, so that follow-up is published again: a retry is never lost,
      // at worst queued twice (delivery is at least once). Otherwise it is a duplicate: nothing to do.
      if (raw.fields.redelivered && delivery.attempts === number) await followUp(delivery.status, message, delivery.id, number);
      return;
    }
    if (['delivered', 'abandoned', 'withheld'].includes(delivery.status)) return;
    // Fields every line of this attempt carries; a plain object, not a child logger, which would
    // cost more than the attempt's own bookkeeping when the level drops the line anyway.
    const about = { deliveryId: delivery.id, endpointId: delivery.endpointId, attempt: number };

    if (delivery.namesErasedUser) {
      await store.withhold(delivery.id);
      logger.info('delivery withheld: it names an erased user', about);
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
      const result = await options.sender.send(delivery.url, rawBody, {
        // Signed afresh at every attempt (the published library's own signer), so a retry hours
        // later still passes a receiver's 300-second check.
        [SIGNATURE_HEADER]: sign(rawBody, options.secrets.open(delivery.secretEncrypted)),
        [EVENT_HEADER]: delivery.eventType,
        [DELIVERY_HEADER]: delivery.id,
      });
      const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
      // A redelivery by hand is one attempt; the automatic schedule allows 1 + retries.
      const last = manual || number >= maxAttempts;
      const status = delivered ? 'delivered' : last ? 'abandoned' : 'retrying';
      await store.record({
        deliveryId: delivery.id,
        number,
        startedAt,
        durationMs: result.durationMs,
        responseCode: result.status ?? null,
        error: result.error ?? null,
        responseBodyStart: result.bodyStart ?? null,
        status,
      });
      await followUp(status, message, delivery.id, number);
      if (delivered) {
        logger.info('delivered', { ...about, status: result.status, durationMs: result.durationMs });
      } else if (last) {
        logger.warn(manual ? 'redelivery failed' : 'delivery abandoned after its last retry', { ...about, status: result.status, error: result.error });
      } else {
        logger.info('attempt failed; retry scheduled', { ...about, status: result.status, error: result.error, retryInMs: queues.retries[number - 1]!.delay });
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
