import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../http/api-error.js';

/** One limit: `points` requests per key in a window of `durationSeconds`. */
export interface LimitRule {
  /** Tells this limit's counts apart in the shared table. */
  name: string;
  points: number;
  durationSeconds: number;
}

/** 429 `rate_limited`, with the seconds to wait in Retry-After (at least 1). */
export function tooManyRequests(msBeforeNext: number, message: string): ApiError {
  return new ApiError('rate_limited', message, {}, { 'Retry-After': String(Math.max(1, Math.ceil(msBeforeNext / 1000))) });
}

/** What the store last answered for a key: its count, and when its window ends. */
interface SeenCount {
  consumed: number;
  resetAt: number;
}

/** Keys whose last count an instance keeps, for when the store does not answer. */
const SEEN_KEYS_MAX = 10_000;

/**
 * A limit counted in PostgreSQL (`api.rate_limits`, rate-limiter-flexible's store), so that N api
 * instances give one client the allowance once, not N times. Counted before the work: requests
 * sent at the same moment cannot all slip into one window. A key past its limit is refused from
 * this instance's memory until its window ends, so a flood costs no query per request.
 *
 * While the store does not answer, each instance counts alone in memory, rather than refuse or
 * let through everyone. It goes on from the count the store last gave it for the key, not from
 * zero. From zero, a flood whose first queries timed out on the busy pool got a second allowance.
 */
export class SharedLimit {
  private readonly limiter: RateLimiterPostgres;
  /** Counts keys the store never answered for, while it does not answer. */
  private readonly memory: RateLimiterMemory;
  private readonly seen = new Map<string, SeenCount>();

  constructor(
    pool: pg.Pool,
    readonly rule: LimitRule,
    /**
     * How far past its limit a key is counted before this instance refuses it from memory for
     * the rest of its window. A count given back lowers nothing once the key is refused from
     * memory: a limit whose counts are given back sets this well past its points. Default:
     * the limit's points plus one.
     */
    memoryBlockAfter = rule.points + 1,
    /** Told each time the store fails and the count is taken in memory. */
    private readonly onStoreFailure: (error: unknown) => void = () => undefined,
  ) {
    this.limiter = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      schemaName: 'api',
      tableName: 'rate_limits',
      // Made by the api's migrations; expired rows go with the retention pruning.
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: rule.name,
      points: rule.points,
      duration: rule.durationSeconds,
      // A key past its limit is refused from memory until its window ends: a flood from it costs
      // this instance no query per request.
      inMemoryBlockOnConsumed: memoryBlockAfter,
    });
    this.memory = new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.durationSeconds });
  }

  /** Counts one request for `key`; past the limit, throws 429 `rate_limited` with Retry-After. */
  async take(key: string, message: string): Promise<void> {
    const counted = await this.count(key);
    if (!counted.allowed) throw tooManyRequests(counted.msBeforeNext, message);
  }

  /** Counts one request for `key`: whether it is within the limit, the count so far, and when the window ends. */
  async count(key: string): Promise<{ allowed: boolean; consumed: number; msBeforeNext: number }> {
    let answer: RateLimiterRes;
    let allowed = true;
    try {
      answer = await this.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return this.countInMemory(key, rejection);
      answer = rejection;
      allowed = false;
    }
    // A refusal from memory carries no count: the one noted before stands.
    if (answer.consumedPoints > 0) this.note(key, answer);
    return { allowed, consumed: answer.consumedPoints, msBeforeNext: answer.msBeforeNext };
  }

  /** Takes back a request `take` counted, once it turned out not to count (a key that authenticated). */
  async giveBack(key: string): Promise<void> {
    await this.limiter.reward(key, 1).catch(() => undefined);
    const seen = this.seen.get(key);
    if (seen && seen.consumed > 0) seen.consumed -= 1;
  }

  /** Starts the key's count again (an account signed in). */
  async reset(key: string): Promise<void> {
    this.seen.delete(key);
    await this.limiter.delete(key).catch(() => undefined);
    await this.memory.delete(key);
  }

  /** Refuses the key for `seconds`, whatever its count. */
  async block(key: string, seconds: number): Promise<void> {
    try {
      await this.limiter.block(key, seconds);
    } catch (error) {
      this.onStoreFailure(error);
      await this.memory.block(key, seconds);
    }
  }

  private note(key: string, answer: RateLimiterRes): void {
    this.seen.delete(key);
    if (this.seen.size >= SEEN_KEYS_MAX) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, { consumed: answer.consumedPoints, resetAt: Date.now() + answer.msBeforeNext });
  }

  /** The store failed: this instance counts on from what it saw of the key, or alone from zero. */
  private async countInMemory(key: string, error: unknown): Promise<{ allowed: boolean; consumed: number; msBeforeNext: number }> {
    this.onStoreFailure(error);
    const seen = this.seen.get(key);
    const now = Date.now();
    if (seen && seen.resetAt > now) {
      seen.consumed += 1;
      return { allowed: seen.consumed <= this.rule.points, consumed: seen.consumed, msBeforeNext: seen.resetAt - now };
    }
    try {
      const counted = await this.memory.consume(key);
      return { allowed: true, consumed: counted.consumedPoints, msBeforeNext: counted.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { allowed: false, consumed: rejection.consumedPoints, msBeforeNext: rejection.msBeforeNext };
      throw rejection;
    }
  }
}
