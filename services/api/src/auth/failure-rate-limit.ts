import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ApiError } from '../http/api-error.js';

export interface FailureRateLimitOptions {
  /** Failed authentications allowed per client address in a window. Default: 30. */
  limit?: number;
  /** Window length in seconds. Default: 60. */
  windowSeconds?: number;
  /**
   * Whether a request carries proof that it is no guess (a key the authority recognised here
   * lately: one that authenticated, or a revoked one). Such a request goes through an address's
   * block and its 401 is not counted, so that neither a working integration behind the same NAT as
   * an old deployment still sending a rotated key, nor one that goes on sending a key since revoked
   * (401 on every request, specification section 3), is locked out by those refusals. Default: none.
   */
  notAGuess?: (request: Request) => boolean;
}

/**
 * Slows down key and password guessing. Only answers that were 401 count, and only once they
 * are sent, so any number of concurrent requests with a valid key is never limited; a client
 * address over the limit gets 429 with Retry-After until its window ends, unless the request is
 * `notAGuess`. Counts are per api instance (in memory), and per limiter: each surface has
 * its own.
 */
export function failureRateLimit(options: FailureRateLimitOptions = {}): RequestHandler {
  const limit = options.limit ?? 30;
  const failures = new RateLimiterMemory({ points: limit, duration: options.windowSeconds ?? 60 });
  return async (request, response, next) => {
    const client = request.ip ?? 'unknown';
    const counted = await failures.get(client);
    if (counted && counted.consumedPoints >= limit && !options.notAGuess?.(request)) {
      const retryAfter = String(Math.max(1, Math.ceil(counted.msBeforeNext / 1000)));
      next(new ApiError('rate_limited', 'Too many failed authentication attempts. Wait before retrying.', {}, { 'Retry-After': retryAfter }));
      return;
    }
    response.on('finish', () => {
      // Asked once the answer is made: a key found revoked by this very request is no guess.
      if (response.statusCode === 401 && !options.notAGuess?.(request)) failures.penalty(client, 1).catch(() => undefined);
    });
    next();
  };
}
