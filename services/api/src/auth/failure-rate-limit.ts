import type { Request, RequestHandler } from 'express';
import { clientOf } from '../limits/request-limits.js';
import type { SharedLimit } from '../limits/shared-limit.js';

export interface FailureRateLimitOptions {
  /**
   * Whether a request carries proof that it is no guess (a key the authority recognised here
   * lately: one that authenticated, or a revoked one). Such a request goes through an address's
   * block and is not counted, so that neither a working integration behind the same NAT as
   * an old deployment still sending a rotated key, nor one that goes on sending a key since revoked
   * (401 on every request, specification section 3), is locked out by those refusals. Default: none.
   */
  notAGuess?: (request: Request) => boolean;
}

/**
 * Slows down key and password guessing, per client address (IPv6 by its /64). Each request that
 * may be a guess is counted before it is answered, and given back once its answer is neither 401
 * nor 429:
 * guesses sent at the same moment count as they arrive, not once answered. An address past the
 * limit gets 429 with Retry-After until its window ends, unless the request is `notAGuess`, which
 * is neither blocked nor counted. The count is shared by every api instance (PostgreSQL); each
 * surface has its own.
 */
export function failureRateLimit(failures: SharedLimit, options: FailureRateLimitOptions = {}): RequestHandler {
  return async (request, response, next) => {
    if (options.notAGuess?.(request)) return next();
    const client = clientOf(request);
    try {
      await failures.take(client, 'Too many failed authentication attempts. Wait before retrying.');
    } catch (error) {
      return next(error);
    }
    response.on('finish', () => {
      // Asked once the answer is made: a key found revoked by this very request is no guess. A
      // refusal for a limit (429) stays counted: a client that floods is blocked here too, from
      // memory, at no query per request.
      const refused = response.statusCode === 401 || response.statusCode === 429;
      if (!refused || options.notAGuess?.(request)) void failures.giveBack(client);
    });
    next();
  };
}
