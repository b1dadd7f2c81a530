import { createHmac, createSecretKey } from 'node:crypto';
import type { Hmac, KeyObject } from 'node:crypto';

/** Secrets kept as keys; past this many different ones, the cache starts again. */
const KEYS_KEPT = 16;
const keys = new Map<string, KeyObject>();

/**
 * HMAC-SHA256 over `<t>.<raw body>` with the secret. A string secret is turned into a KeyObject
 * once and kept: a receiver verifies with the same few secrets all day, and converting one again
 * on every createHmac showed in each verification (docs/decisions.md). A caller with more secrets than
 * that in use (the sender, one per endpoint) passes KeyObjects it keeps itself.
 */
export function signatureHmac(secret: string | KeyObject, timestamp: string | number, rawBody: string | Uint8Array): Hmac {
  const hmac = createHmac('sha256', typeof secret === 'string' ? keyOf(secret) : secret);
  // One update for a string body: each update call costs as much as hashing a few hundred bytes.
  return typeof rawBody === 'string' ? hmac.update(`${timestamp}.${rawBody}`) : hmac.update(`${timestamp}.`).update(rawBody);
}

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}
