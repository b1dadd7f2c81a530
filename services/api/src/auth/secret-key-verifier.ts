import type { KeyChange, RpcResult } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
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
 * entries before the authority is told it took effect. A revoked key's refusal is cached too, so
 * an integration still sending it (its 401s are no guesses, and are not rate-limited) does not
 * make a call to the authority per request; any key change, a restore among them, drops those
 * refusals, since one does not say which key it was. An unknown key is never cached.
 */
export class SecretKeyVerifier {
  private readonly cache = new Map<string, { identity: ApiKeyIdentity; expiresAt: number }>();
  /** Hashes the authority answered `revoked_key` for, until when. */
  private readonly revoked = new Map<string, number>();
  /** Bumped by every change, so an answer that raced a change is not cached. */
  private generation = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly trustedUntil: () => number,
    private readonly options: KeyCacheOptions = {},
    /**
     * Whether this instance hears key changes now (its listener's queue bound). An answer is
     * cached only if the lookup began while it did and while the lease was confirmed: one that
     * began before could have raced a change this instance never heard. Default: always.
     */
    private readonly listening: () => boolean = () => true,
  ) {}

  async verify(keyHash: string): Promise<ApiKeyIdentity> {
    const now = Date.now();
    if (now < this.trustedUntil()) {
      const hit = this.cache.get(keyHash);
      if (hit && hit.expiresAt > now) return hit.identity;
      if ((this.revoked.get(keyHash) ?? 0) > now) throw new RpcError('revoked_key', 'The key is revoked.');
    }
    const generation = this.generation;
    // Not before this instance hears changes and the authority counts its lease: a key revoked
    // meanwhile would be told to instances that were, and this one would keep serving it.
    const cacheable = this.listening() && now < this.trustedUntil();
    let identity: ApiKeyIdentity;
    try {
      identity = await this.rpc.call('authority.verifySecretKey', { key_hash: keyHash });
    } catch (error) {
      if (error instanceof RpcError && error.code === 'revoked_key' && cacheable && generation === this.generation) this.remember(this.revoked, keyHash, this.expiry());
      throw error;
    }
    if (cacheable && generation === this.generation) this.remember(this.cache, keyHash, { identity, expiresAt: this.expiry() });
    return identity;
  }

  private expiry(): number {
    return Date.now() + (this.options.ttlMs ?? 60_000);
  }

  /** Newest last, so the oldest goes first once there are more than `maxEntries`. */
  private remember<V>(entries: Map<string, V>, keyHash: string, value: V): void {
    entries.delete(keyHash);
    entries.set(keyHash, value);
    if (entries.size > (this.options.maxEntries ?? 10_000)) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
  }

  /** Drops the keys a change names (or every key of its team, or every key). */
  apply(change: KeyChange): void {
    this.generation += 1;
    this.revoked.clear();
    const ids = new Set(change.key_ids);
    for (const [hash, { identity }] of this.cache) {
      const affected = ids.size > 0 ? ids.has(identity.key_id) : change.team_id === undefined || change.team_id === identity.team_id;
      if (affected) this.cache.delete(hash);
    }
  }

  clear(): void {
    this.generation += 1;
    this.cache.clear();
    this.revoked.clear();
  }
}
