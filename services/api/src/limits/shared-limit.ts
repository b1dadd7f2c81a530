import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
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

/** A request counted: whether it is within the limit, the count so far, when the window ends, and where it was counted. */
export interface Counted {
  allowed: boolean;
  consumed: number;
  msBeforeNext: number;
  /** Counted in this instance's memory, the store not answering: `giveBack` takes it back there. */
  inMemory: boolean;
}

/** What this instance knows of a key's count. */
interface KnownCount {
  /** The store's count when it last answered. */
  stored: number;
  /** Requests counted here since then, while the store did not answer. */
  inMemory: number;
  /** When the window ends, in ms since the epoch. */
  resetAt: number;
  /** When a refusal by `block` ends: kept for when the store does not answer. */
  blockedUntil: number;
}

/** Keys an instance keeps a count of; past it, the least recently counted is forgotten. */
const KNOWN_KEYS_MAX = 10_000;

/**
 * A limit counted in PostgreSQL (`api.rate_limits`, rate-limiter-flexible's store), so that N api
 * instances give one client the allowance once, not N times. Counted before the work: requests
 * sent at the same moment cannot all slip into one window. A key past its limit is refused from
 * this instance's memory until its window ends, so a flood costs no query per request.
 *
 * While the store does not answer, each instance counts alone in memory, rather than refuse or
 * let through everyone. It adds to the count the store last gave it for the key, so a store that
 * fails now and then gives no second allowance. The library's insurance limiter counted from
 * zero instead (docs/decisions.md).
 */
export class SharedLimit {
  private readonly limiter: RateLimiterPostgres;
  private readonly known = new Map<string, KnownCount>();

  constructor(
    pool: pg.Pool,
    readonly rule: LimitRule,
    /**
     * How far past its limit a key is counted before this instance refuses it from memory for
     * the rest of its window. A count given back lowers nothing once the key is refused from
     * memory: a limit whose counts are given back sets this well past its points. Default:
     * the limit's points plus one.
     */
    private readonly memoryBlockAfter = rule.points + 1,
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
  }

  /** Counts one request for `key`; past the limit, throws 429 `rate_limited` with Retry-After. */
  async take(key: string, message: string): Promise<Counted> {
    const counted = await this.count(key);
    if (!counted.allowed) throw tooManyRequests(counted.msBeforeNext, message);
    return counted;
  }

  /** Counts one request for `key`. */
  async count(key: string): Promise<Counted> {
    const now = Date.now();
    const known = this.knownNow(key, now);
    // Refused here while the store did not answer: asked again, it would only add to a busy pool.
    if (known && known.inMemory > 0 && known.stored + known.inMemory >= this.memoryBlockAfter) {
      return { allowed: false, consumed: known.stored + known.inMemory, msBeforeNext: known.resetAt - now, inMemory: true };
    }
    let answer: RateLimiterRes;
    let allowed = true;
    try {
      answer = await this.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return this.countInMemory(key, known, now, rejection);
      answer = rejection;
      allowed = false;
    }
    // Refused by the library from its memory: no count, and nothing new to note.
    if (answer.consumedPoints === 0) return { allowed: false, consumed: 0, msBeforeNext: answer.msBeforeNext, inMemory: false };
    const inMemory = known?.inMemory ?? 0;
    this.remember(key, { stored: answer.consumedPoints, inMemory, resetAt: now + answer.msBeforeNext, blockedUntil: known?.blockedUntil ?? 0 });
    const consumed = answer.consumedPoints + inMemory;
    return { allowed: allowed && consumed <= this.rule.points, consumed, msBeforeNext: answer.msBeforeNext, inMemory: false };
  }

  /** Takes back a request `take` counted, once it turned out not to count (a key that authenticated). */
  async giveBack(key: string, counted: Counted): Promise<void> {
    const known = this.known.get(key);
    if (counted.inMemory) {
      if (known && known.inMemory > 0) known.inMemory -= 1;
      return;
    }
    if (known && known.stored > 0) known.stored -= 1;
    await this.limiter.reward(key, 1).catch(() => undefined);
  }

  /** Starts the key's count again (an account signed in). */
  async reset(key: string): Promise<void> {
    this.known.delete(key);
    await this.limiter.delete(key).catch(() => undefined);
  }

  /** Refuses the key for `seconds`, whatever its count. */
  async block(key: string, seconds: number): Promise<void> {
    const now = Date.now();
    const known = this.knownNow(key, now) ?? { stored: 0, inMemory: 0, resetAt: now, blockedUntil: 0 };
    known.blockedUntil = now + seconds * 1000;
    known.resetAt = Math.max(known.resetAt, known.blockedUntil);
    this.remember(key, known);
    await this.limiter.block(key, seconds).catch((error: unknown) => this.onStoreFailure(error));
  }

  /** The key's count while its window or its refusal lasts. */
  private knownNow(key: string, now: number): KnownCount | undefined {
    const known = this.known.get(key);
    if (!known || known.resetAt > now) return known;
    this.known.delete(key);
    return undefined;
  }

  private remember(key: string, known: KnownCount): void {
    this.known.delete(key);
    if (this.known.size >= KNOWN_KEYS_MAX) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, known);
  }

  /** The store failed: this instance adds the request to what it knows of the key, or counts from zero. */
  private countInMemory(key: string, known: KnownCount | undefined, now: number, error: unknown): Counted {
    this.onStoreFailure(error);
    const counting = known ?? { stored: 0, inMemory: 0, resetAt: now + this.rule.durationSeconds * 1000, blockedUntil: 0 };
    counting.inMemory += 1;
    this.remember(key, counting);
    if (counting.blockedUntil > now) return { allowed: false, consumed: counting.stored + counting.inMemory, msBeforeNext: counting.blockedUntil - now, inMemory: true };
    const consumed = counting.stored + counting.inMemory;
    return { allowed: consumed <= this.rule.points, consumed, msBeforeNext: counting.resetAt - now, inMemory: true };
  }
}
