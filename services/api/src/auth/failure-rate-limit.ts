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
 * may be a guess is counted before it is answered, and given back unless its answer is 401.
 * Guesses sent at the same moment count as they arrive, not once answered. An address past the
 * limit gets 429 with Retry-After, unless the request is `notAGuess`, which is neither refused nor
 * counted. The count is shared by every api instance (PostgreSQL); each surface has its own.
 *
 * The limit also bounds an address's unrecognised requests in flight at once. A burst of honest
 * ones past it is refused only while it lasts, since their counts come back as they are answered.
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
    // On close, which a client that hung up first also gives: only a 401 stays counted. A 429 met
    // further on is another limit's (sign-ups, or the authority's full password hashing), not a
    // failed authentication. Asked once the answer is made: a key found revoked by this very
    // request is no guess.
    response.on('close', () => {
      const failed = response.headersSent && response.statusCode === 401;
      if (!failed || options.notAGuess?.(request)) void failures.giveBack(client);
    });
    next();
  };
}
