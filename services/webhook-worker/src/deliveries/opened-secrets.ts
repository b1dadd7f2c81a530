import { createSecretKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { SecretBox } from '../endpoints/signing-secrets.js';

/** Unsealed secrets kept per process; past this many, the cache starts again. */
const OPENED_SECRETS_KEPT = 10_000;

/**
 * Endpoints' secrets as signing keys, unsealed once per sealed value rather than per attempt.
 * Keyed by the sealed text, which each attempt reads afresh: a rotated secret is a new key, and
 * the previous one is never used again. Kept here, one per endpoint, rather than in the signing
 * library's small cache of string secrets, which many endpoints would churn.
 */
export class OpenedSecrets {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly box: SecretBox) {}

  /** The endpoint's secret as a signing key. Throws when no configured key opens it. */
  open(sealed: string, endpointId: string): KeyObject {
    let key = this.keys.get(sealed);
    if (key === undefined) {
      if (this.keys.size >= OPENED_SECRETS_KEPT) this.keys.clear();
      key = createSecretKey(Buffer.from(this.box.open(sealed, endpointId), 'utf8'));
      this.keys.set(sealed, key);
    }
    return key;
  }
}
