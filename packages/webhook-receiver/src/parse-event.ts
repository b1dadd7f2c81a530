import { EVENT_NAMES } from '@feedback/contracts/events';
import type { EventName } from '@feedback/contracts/events';
import { verify } from '@feedback/webhook-signature';
import type { VerifyOptions } from '@feedback/webhook-signature';
import type { UnknownWebhookEvent, WebhookEvent } from './events.js';

/** A verified body that is not an event envelope (section 2.5). */
export class WebhookPayloadError extends Error {
  override readonly name = 'WebhookPayloadError';
  readonly code = 'malformed_payload';
}

const known = new Set<string>(EVENT_NAMES);

/**
 * The event as the typed union when this library version knows its name, else undefined. (A
 * function answering the narrowed value, not a type guard: narrowing a union of these deep types
 * with a guard is more than the compiler can do.)
 */
export function asKnownEvent(event: WebhookEvent | UnknownWebhookEvent): WebhookEvent | undefined {
  return known.has(event.event) ? (event as WebhookEvent) : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses a delivery body into its event. Checks the envelope, not every field of `data`: the
 * body is verified to come from the service, and the types describe what it sends.
 */
export function parseEvent(rawBody: string | Buffer | Uint8Array): WebhookEvent | UnknownWebhookEvent {
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new WebhookPayloadError('The body is not JSON: pass the raw request body of a webhook delivery.');
  }
  if (
    !isObject(body) ||
    typeof body['id'] !== 'string' ||
    typeof body['event'] !== 'string' ||
    typeof body['created_at'] !== 'string' ||
    !isObject(body['app']) ||
    !isObject(body['data'])
  ) {
    throw new WebhookPayloadError('The body is not a webhook envelope: it needs id, event, created_at, app and data.');
  }
  return body as unknown as WebhookEvent | UnknownWebhookEvent;
}

/** Verifies the signature (see `verify` of @feedback/webhook-signature), then parses the event. */
export function constructEvent(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | string[] | undefined | null,
  secret: string,
  options?: VerifyOptions,
): WebhookEvent | UnknownWebhookEvent {
  verify(rawBody, signatureHeader, secret, options);
  return parseEvent(rawBody);
}

export type { EventName };
