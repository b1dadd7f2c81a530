import { createLocalJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload, JWTVerifyOptions } from 'jose';

/** The authority's keys could not be fetched: a caller answers "retry", never "invalid". */
export class AuthorityKeysUnavailable extends Error {
  override readonly name = 'AuthorityKeysUnavailable';
}

export interface AuthorityKeysOptions {
  /** How long fetched keys are used before they are fetched again, in the background. Default: 600000. */
  maxAgeMs?: number;
  /** How soon a token naming a key not held may fetch again: forged ones cannot make us ask for ever. Default: 30000. */
  unknownKeyAfterMs?: number;
  /** How long after a failed fetch the next may start. Default: 5000. */
  retryAfterMs?: number;
  /** Milliseconds since the epoch. Default: the system clock. */
  now?: () => number;
}

/**
 * The authority's public keys, fetched over RPC, for verifying the tokens it signs: member
 * sessions in the api, endpoint grants in the worker.
 *
 * - One fetch at a time, whatever the number of requests waiting for it.
 * - Keys past their age are fetched again in the background, while the ones held keep verifying.
 *   A slow or failed fetch then signs nobody out.
 * - A token naming a key not held (a rotation) waits for a fetch; without any keys, so does every
 *   token. If that fetch fails, `verify` throws `AuthorityKeysUnavailable`.
 */
export class AuthorityKeys {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private fetching: Promise<void> | undefined;
  private readonly maxAgeMs: number;
  private readonly unknownKeyAfterMs: number;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly fetchKeys: () => Promise<JSONWebKeySet>,
    options: AuthorityKeysOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.unknownKeyAfterMs = options.unknownKeyAfterMs ?? 30_000;
    this.retryAfterMs = options.retryAfterMs ?? 5000;
    this.now = options.now ?? Date.now;
  }

  /** Verifies `token`'s signature and claims; throws jose's error for a token that is not good. */
  async verify(token: string, options: JWTVerifyOptions): Promise<JWTPayload> {
    const keys = await this.current();
    try {
      return (await jwtVerify(token, keys, options)).payload;
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || this.now() - this.fetchedAt < this.unknownKeyAfterMs) throw error;
      await this.refresh(true);
      return (await jwtVerify(token, this.keySet!, options)).payload;
    }
  }

  private async current(): Promise<ReturnType<typeof createLocalJWKSet>> {
    if (!this.keySet) await this.refresh(true);
    else if (this.now() - this.fetchedAt > this.maxAgeMs) void this.refresh(false).catch(() => undefined);
    return this.keySet!;
  }

  /** Fetches the keys, once for every caller at the same moment; `needed` callers wait for it and hear its failure. */
  private async refresh(needed: boolean): Promise<void> {
    if (!this.fetching) {
      if (!needed && this.now() - this.failedAt < this.retryAfterMs) return;
      this.fetching = this.fetchKeys()
        .then((jwks) => {
          this.keySet = createLocalJWKSet(jwks);
          this.fetchedAt = this.now();
        })
        .catch((error: unknown) => {
          this.failedAt = this.now();
          throw new AuthorityKeysUnavailable('The authority\'s public keys could not be fetched.', { cause: error });
        })
        .finally(() => (this.fetching = undefined));
    }
    await this.fetching;
  }
}
