import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import { RpcError } from '@feedback/messaging';

export interface PasswordHashingOptions {
  /** Passwords hashed or checked at once. Default: 2. */
  concurrency?: number;
  /** Passwords that may wait for a turn; past that, `rate_limited` at once. Default: 16. */
  queue?: number;
}

/**
 * Runs password hashing (scrypt: 32 MiB and tens of milliseconds each) a few at a time, behind a
 * bounded line. A flood of sign-ups or sign-ins is refused `rate_limited` once the line is full,
 * at once, instead of growing a backlog that outlasts every caller's time limit.
 */
export class PasswordHashing {
  private readonly limit: LimitFunction;
  private readonly queue: number;

  constructor(options: PasswordHashingOptions = {}) {
    this.limit = pLimit(options.concurrency ?? 2);
    this.queue = options.queue ?? 16;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.limit.activeCount >= this.limit.concurrency && this.limit.pendingCount >= this.queue) {
      return Promise.reject(new RpcError('rate_limited', 'Too many sign-ins and sign-ups at this moment. Retry in a few seconds.'));
    }
    return this.limit(work);
  }
}
