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

/**
 * A limit counted in PostgreSQL (`api.rate_limits`, rate-limiter-flexible's store), so that N api
 * instances give one client the allowance once, not N times. Counted before the work: requests
 * sent at the same moment cannot all slip into one window. While the database does not answer,
 * each instance counts alone in memory (the library's insurance limiter), rather than refuse or
 * let through everyone. A key past its limit is refused from this instance's memory until its
 * window ends, so a flood costs no query per request.
 */
export class SharedLimit {
  private readonly limiter: RateLimiterPostgres;

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
    onStoreFailure: () => void = () => undefined,
  ) {
    const insurance = new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.durationSeconds });
    const countInMemory = insurance.consume.bind(insurance);
    insurance.consume = (...args) => {
      onStoreFailure();
      return countInMemory(...args);
    };
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
      insuranceLimiter: insurance,
      // A key past its limit is refused from memory until its window ends: a flood from it costs
      // this instance no query per request.
      inMemoryBlockOnConsumed: memoryBlockAfter,
    });
  }

  /** Counts one request for `key`; past the limit, throws 429 `rate_limited` with Retry-After. */
  async take(key: string, message: string): Promise<void> {
    const counted = await this.count(key);
    if (!counted.allowed) throw tooManyRequests(counted.msBeforeNext, message);
  }

  /** Counts one request for `key`: whether it is within the limit, the count so far, and when the window ends. */
  async count(key: string): Promise<{ allowed: boolean; consumed: number; msBeforeNext: number }> {
    try {
      const counted = await this.limiter.consume(key);
      return { allowed: true, consumed: counted.consumedPoints, msBeforeNext: counted.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { allowed: false, consumed: rejection.consumedPoints, msBeforeNext: rejection.msBeforeNext };
      throw rejection;
    }
  }

  /** Takes back a request `take` counted, once it turned out not to count (a key that authenticated). */
  async giveBack(key: string): Promise<void> {
    await this.limiter.reward(key, 1).catch(() => undefined);
  }

  /** Starts the key's count again (an account signed in). */
  async reset(key: string): Promise<void> {
    await this.limiter.delete(key).catch(() => undefined);
  }

  /** Refuses the key for `seconds`, whatever its count. */
  async block(key: string, seconds: number): Promise<void> {
    await this.limiter.block(key, seconds);
  }
}
