import type { KeyObject } from 'node:crypto';
import { signatureHmac } from './hmac.js';

export interface SignOptions {
  /** The signature's time, in whole unix seconds (not milliseconds). Default: now. */
  timestamp?: number;
}

/**
 * The `X-Service-Signature` value for a body, made as the sender makes it: HMAC-SHA256 with the
 * secret over `<t>.<raw body>`. The secret may be given as a KeyObject of its UTF-8 bytes
 * (`crypto.createSecretKey`), which a signer of many endpoints keeps per secret.
 */
export function sign(rawBody: string | Buffer | Uint8Array, secret: string | KeyObject, options: SignOptions = {}): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  // `Date.now() / 1000` would make `t=1800000000.123`, which no receiver accepts.
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError(`timestamp must be whole unix seconds, such as Math.floor(Date.now() / 1000); got ${timestamp}`);
  const v1 = signatureHmac(secret, timestamp, rawBody).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * A valid signature header for a payload of your own, so you can test your webhook handler
 * without the service: send `payload` as the body with this header.
 */
export function generateTestHeader(options: { payload: string; secret: string; timestamp?: number }): string {
  return sign(options.payload, options.secret, { timestamp: options.timestamp });
}
