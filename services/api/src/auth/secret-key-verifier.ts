import type { KeyChange, RpcResult } from '@feedback/contracts';
import type { RpcClient } from '@feedback/messaging';

export type ApiKeyIdentity = RpcResult<'authority.verifySecretKey'>;

export interface KeyCacheOptions {
  /** How long a verified key is reused without asking the authority. Default: 60000. */
  ttlMs?: number;
  /** Keys remembered at most; the oldest is dropped first. Default: 10000. */
  maxEntries?: number;
}

/**
 * Resolves a key hash to its identity, asking the authority and caching the answer so checking a
 * key does not dominate a request. The cache is used only until `trustedUntil()` (this
 * instance's lease at the authority, see ApiInstancePresence); a key change drops the affected
 * entries before the authority is told it took effect. Refusals are never cached, so a restored
 * key works at its next request.
 */
export class SecretKeyVerifier {
  private readonly cache = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  /** Bumped by every change, so an answer that raced a change is not cached. */
  private generation = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly trustedUntil: () => number,
    private readonly options: KeyCacheOptions = {},
  ) {}

  async verify(keyHash: string): Promise<ApiKeyIdentity> {
    const now = Date.now();
    if (now < this.trustedUntil()) {
      const hit = this.cache.get(keyHash);
      if (hit && hit.expiresAt > now) return hit.identity;
    }
    const generation = this.generation;
    const identity = await this.rpc.call('authority.verifySecretKey', { key_hash: keyHash });
    if (generation === this.generation) this.remember(keyHash, identity);
    return identity;
  }

  private remember(keyHash: string, identity: ApiKeyIdentity): void {
    this.cache.delete(keyHash);
    this.cache.set(keyHash, { identity, expiresAt: Date.now() + (this.options.ttlMs ?? 60_000) });
    if (this.cache.size > (this.options.maxEntries ?? 10_000)) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
  }

  /** Drops the keys a change names (or every key of its team, or every key). */
  apply(change: KeyChange): void {
    this.generation += 1;
    const ids = new Set(change.key_ids);
    for (const [hash, { identity }] of this.cache) {
      const affected = ids.size > 0 ? ids.has(identity.key_id) : change.team_id === undefined || change.team_id === identity.team_id;
      if (affected) this.cache.delete(hash);
    }
  }

  clear(): void {
    this.generation += 1;
    this.cache.clear();
  }
}
