import { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS } from './idempotency-store.js';
import type { ClaimResult, IdempotencyStore } from './idempotency-store.js';

export interface MemoryIdempotencyStoreOptions {
  /** How long a claim stays in progress before another attempt may take it over (a crashed handler). Default: 120000 (2 minutes). */
  leaseMs?: number;
  /**
   * How long a handled id is remembered after it last arrived. Default: 3024000000 (35 days): a
   * member can redeliver by hand any delivery its endpoint's history still holds, which is 30
   * days after its last attempt.
   */
  retentionMs?: number;
  /** Most ids remembered; the oldest are forgotten first. Default: 100000. */
  maxEntries?: number;
  /** The clock, in milliseconds. Default: `Date.now`. */
  now?: () => number;
}

/**
 * Handled ids in this process's memory: for one-process receivers and tests. They are lost on
 * restart and not shared between processes; use `PostgresIdempotencyStore` for those.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  // Insertion order is age order, so the oldest entries are at the front.
  private readonly entries = new Map<string, { state: 'in_progress' | 'done'; at: number }>();
  readonly leaseMs: number;
  private readonly retentionMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  async claim(deliveryId: string): Promise<ClaimResult> {
    const now = this.now();
    this.forgetOld(now);
    const entry = this.entries.get(deliveryId);
    if (entry?.state === 'done') {
      // Arrived again (a redelivery by hand): remembered from now, as the history keeps it.
      this.entries.delete(deliveryId);
      this.entries.set(deliveryId, { state: 'done', at: now });
      return 'done';
    }
    if (entry && now - entry.at < this.leaseMs) return 'in_progress';
    this.entries.delete(deliveryId);
    this.entries.set(deliveryId, { state: 'in_progress', at: now });
    return 'claimed';
  }

  async complete(deliveryId: string): Promise<void> {
    this.entries.delete(deliveryId);
    this.entries.set(deliveryId, { state: 'done', at: this.now() });
  }

  async release(deliveryId: string): Promise<void> {
    this.entries.delete(deliveryId);
  }

  private forgetOld(now: number): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && now - entry.at < this.retentionMs) break;
      this.entries.delete(id);
    }
  }
}
