import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ApiError } from '../http/api-error.js';

export interface FailureRateLimitOptions {
  /** Failed authentications allowed per client address in a window. Default: 30. */
  limit?: number;
  /** Window length in seconds. Default: 60. */
  windowSeconds?: number;
  /**
   * Lets a request through an address's block when it carries proof that is no guess (a key that
   * authenticated here lately), so that failures from the same address, such as an old
   * deployment still sending a rotated key from behind the same NAT, do not lock out a working
   * integration. Default: none.
   */
  admit?: (request: Request) => boolean;
}

/**
 * Slows down key and password guessing. Only answers that were 401 count, and only once they
 * are sent, so any number of concurrent requests with a valid key is never limited; a client
 * address over the limit gets 429 with Retry-After until its window ends, unless `admit` lets the
 * request through. Counts are per api instance (in memory), and per limiter: each surface has
 * its own.
 */
export function failureRateLimit(options: FailureRateLimitOptions = {}): RequestHandler {
  const limit = options.limit ?? 30;
  const failures = new RateLimiterMemory({ points: limit, duration: options.windowSeconds ?? 60 });
  return async (request, response, next) => {
    const client = request.ip ?? 'unknown';
    const counted = await failures.get(client);
    if (counted && counted.consumedPoints >= limit && !options.admit?.(request)) {
      const retryAfter = String(Math.max(1, Math.ceil(counted.msBeforeNext / 1000)));
      next(new ApiError('rate_limited', 'Too many failed authentication attempts. Wait before retrying.', {}, { 'Retry-After': retryAfter }));
      return;
    }
    response.on('finish', () => {
      if (response.statusCode === 401) failures.penalty(client, 1).catch(() => undefined);
    });
    next();
  };
}
