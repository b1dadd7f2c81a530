import { createHmac, createSecretKey } from 'node:crypto';
import type { Hmac, KeyObject } from 'node:crypto';

/** Secrets kept as keys; past this many different ones, the cache starts again. */
const KEYS_KEPT = 16;
const keys = new Map<string, KeyObject>();

/**
 * HMAC-SHA256 over `<t>.<raw body>` with the secret. The secret is turned into a KeyObject once
 * and kept (a receiver verifies with the same few secrets all day): a string secret is converted
 * again on every createHmac, a tenth of a small body's verification.
 */
export function signatureHmac(secret: string, timestamp: string | number, rawBody: string | Uint8Array): Hmac {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  const hmac = createHmac('sha256', key);
  // One update for a string body: each update call costs as much as hashing a few hundred bytes.
  return typeof rawBody === 'string' ? hmac.update(`${timestamp}.${rawBody}`) : hmac.update(`${timestamp}.`).update(rawBody);
}
