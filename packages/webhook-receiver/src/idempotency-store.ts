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
  /**
   * How long a claim stays in progress before another attempt may take it over. Given, a handler
   * that failed after its claim's lease does not release it: another attempt may hold it by now.
   */
  readonly leaseMs?: number;
  claim(deliveryId: string): Promise<ClaimResult>;
  complete(deliveryId: string): Promise<void>;
  release(deliveryId: string): Promise<void>;
}

/**
 * How long a claim may stay in progress before another attempt may take it over: 2 minutes.
 * Well past the sender's 10-second limit (by then it has counted the attempt failed), and well
 * short of its first retry, 5 minutes after the failure. A lease as long as that retry's delay
 * ended only milliseconds before the retry of an attempt whose receiver crashed at once arrived:
 * with the receiver's clock a little behind the sender's (the lease is timed by the receiver's
 * process or database, the retry by the sender's broker), it was answered 409 and waited 15
 * minutes more.
 */
export const DEFAULT_LEASE_MS = 2 * 60 * 1000;

/**
 * How long to remember a handled id after it last arrived: 35 days. A member can redeliver by hand
 * (with the same id) any delivery its endpoint's history still holds, 30 days after its last
 * attempt; the sender's own retries end within 11 hours.
 */
export const DEFAULT_RETENTION_MS = 35 * 24 * 60 * 60 * 1000;
