import { DELIVERY_HEADER, SIGNATURE_HEADER, WebhookVerificationError, refuseWhiteSpaceAround, validToleranceSeconds, verify } from '@feedback/webhook-signature';
import type { UnknownWebhookEvent, WebhookEvent } from './events.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { WebhookPayloadError, parseEvent } from './parse-event.js';

export interface WebhookHandlerOptions {
  /** The endpoint's `whsec_…` signing secret. */
  secret: string;
  /** Your handler, called once per delivery id (with a store); throw to have the delivery retried. */
  onEvent(event: WebhookEvent | UnknownWebhookEvent): Promise<void> | void;
  /**
   * Told what `onEvent` threw (the sender only hears 500 `handler_failed`, and retries); as an
   * `UnmarkedDeliveryError`, that a handled delivery could not be marked done in the store; as an
   * `IdempotencyStoreError`, that the store failed to claim a delivery (answered 503) or to release one.
   * Default: one line on standard error with the event's name and delivery id and the message.
   */
  onError?: (error: unknown, event: WebhookEvent | UnknownWebhookEvent) => void;
  /** Where handled delivery ids are kept, so duplicates are skipped. Default: none (every arrival is handled). */
  idempotencyStore?: IdempotencyStore;
  /** Largest accepted signature age, in seconds, either way. Default: 300. */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. Default: `Date.now`. */
  now?: () => number;
}

/** What an adapter receives: the raw body and the headers, as the framework gives them. */
export interface IncomingWebhook {
  rawBody: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** What an adapter answers: status and JSON body. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface WebhookHandler {
  handle(request: IncomingWebhook): Promise<WebhookAnswer>;
}

/**
 * A delivery was handled, but the idempotency store failed to mark it done (its `cause`). It was
 * answered 200 all the same: the work is done, and a 500 would have the sender's retry, 5 minutes
 * later, run the handler again for certain, where now only an arrival of the same id does (a
 * member's redelivery), once the claim's lease has lapsed.
 */
export class UnmarkedDeliveryError extends Error {
  override readonly name = 'UnmarkedDeliveryError';
  constructor(cause: unknown) {
    super(`handled, but the idempotency store could not mark it done (answered 200; should the same id come again, it is handled again): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The idempotency store failed (its `cause`) where the answer depends on it: claiming a delivery
 * (answered 503 `store_unavailable`, so the sender retries and nothing is handled unguarded), or
 * releasing the claim of one whose handler failed (still answered 500; the claim lapses after its
 * lease instead).
 */
export class IdempotencyStoreError extends Error {
  override readonly name = 'IdempotencyStoreError';
  constructor(
    readonly step: 'claim' | 'release',
    cause: unknown,
  ) {
    super(`the idempotency store failed to ${step} the delivery: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

function reportToStandardError(error: unknown, event: WebhookEvent | UnknownWebhookEvent): void {
  if (error instanceof UnmarkedDeliveryError || error instanceof IdempotencyStoreError) {
    process.stderr.write(`webhook delivery ${event.id} (${event.event}) ${error.message}\n`);
    return;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`webhook handler failed on ${event.event} (delivery ${event.id}); it will be retried: ${message}\n`);
}

function header(headers: IncomingWebhook['headers'], name: string): string | string[] | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/**
 * The framework-free core: verify, parse, skip duplicates, call your handler, and say what to
 * answer. 2xx tells the sender the delivery is done; anything else has it retried on its schedule,
 * which is why a delivery still being handled elsewhere is answered 409, never 200.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  // A tolerance that is not a number of seconds, or a secret missing from the environment, fails
  // here, at start-up, not at every delivery until the sender gives up.
  const toleranceSeconds = validToleranceSeconds(options.toleranceSeconds);
  if (typeof options.secret !== 'string' || !options.secret) throw new TypeError("secret must be the endpoint's whsec_ signing secret; got none");
  refuseWhiteSpaceAround(options.secret);
  return {
    async handle(request) {
      let event: WebhookEvent | UnknownWebhookEvent;
      try {
        verify(request.rawBody as string, header(request.headers, SIGNATURE_HEADER), options.secret, {
          toleranceSeconds,
          now: options.now,
        });
        event = parseEvent(request.rawBody as string);
      } catch (error) {
        if (error instanceof WebhookVerificationError) return { status: 400, body: { error: error.reason, message: error.message } };
        if (error instanceof WebhookPayloadError) return { status: 400, body: { error: error.code, message: error.message } };
        throw error;
      }
      const deliveryHeader = header(request.headers, DELIVERY_HEADER);
      if (deliveryHeader !== undefined && deliveryHeader !== event.id) {
        return { status: 400, body: { error: 'delivery_id_mismatch', message: `${DELIVERY_HEADER} differs from the body's id.` } };
      }
      const store = options.idempotencyStore;
      const now = options.now ?? Date.now;
      const claimedAt = now();
      // A report that fails must not change the answer.
      const report = (error: unknown) => {
        try {
          (options.onError ?? reportToStandardError)(error, event);
        } catch {
          // The answer stands whatever the report does.
        }
      };
      if (store) {
        let claim: Awaited<ReturnType<IdempotencyStore['claim']>>;
        try {
          claim = await store.claim(event.id);
        } catch (error) {
          report(new IdempotencyStoreError('claim', error));
          return { status: 503, body: { error: 'store_unavailable', message: 'Could not check this delivery against those handled; it will be retried.' } };
        }
        if (claim === 'done') return { status: 200, body: { received: true, duplicate: true } };
        if (claim === 'in_progress') {
          return { status: 409, body: { error: 'delivery_in_progress', message: 'This delivery is being handled by another attempt; it will be retried.' } };
        }
      }
      try {
        await options.onEvent(event);
      } catch (error) {
        report(error);
        // Past its lease the claim may be another attempt's by now (taken over): releasing it
        // would let a third in beside that one. Left, it lapses anyway.
        if (store && (store.leaseMs === undefined || now() - claimedAt < store.leaseMs)) {
          await store.release(event.id).catch((releaseError: unknown) => report(new IdempotencyStoreError('release', releaseError)));
        }
        return { status: 500, body: { error: 'handler_failed', message: 'The handler failed; the delivery will be retried.' } };
      }
      if (store) {
        try {
          await store.complete(event.id);
        } catch (error) {
          report(new UnmarkedDeliveryError(error));
        }
      }
      return { status: 200, body: { received: true } };
    },
  };
}
