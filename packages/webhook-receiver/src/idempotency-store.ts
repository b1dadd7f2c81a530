/**
 * What a store answers when a delivery arrives: `claimed` (handle it now), `in_progress` (another
 * attempt is handling it: do not answer 2xx yet), or `done` (handled: skip it).
 */
export type ClaimResult = 'claimed' | 'in_progress' | 'done';

/**
 * The delivery ids a receiver has handled. Deliveries come at least once, so the same id can
 * arrive again (a retry after a lost answer, a redelivery by hand). Claim before handling;
 * complete after, or release when handling failed so the sender's retry is handled.
 */
export interface IdempotencyStore {
  claim(deliveryId: string): Promise<ClaimResult>;
  complete(deliveryId: string): Promise<void>;
  release(deliveryId: string): Promise<void>;
}

/** How long a claim may stay in progress before another attempt may take it over: 5 minutes. */
export const DEFAULT_LEASE_MS = 5 * 60 * 1000;
