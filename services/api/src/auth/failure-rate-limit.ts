import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiError } from '../http/api-error.js';

export interface FailureRateLimitOptions {
  /** Failed authentications allowed per client address in a window. Default: 30. */
  limit?: number;
  /** Window length. Default: 60000. */
  windowMs?: number;
}

/**
 * Slows down key and password guessing: only answers 401 count, so a client with a valid key is
 * never limited by this. Counts are per api instance (in memory).
 */
export function failureRateLimit(options: FailureRateLimitOptions = {}): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs ?? 60_000,
    limit: options.limit ?? 30,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    requestWasSuccessful: (_request, response) => response.statusCode !== 401,
    skipSuccessfulRequests: true,
    handler: (request, _response, next) => {
      const resetTime = (request as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + 60_000) - Date.now()) / 1000));
      next(
        new ApiError('rate_limited', 'Too many failed authentication attempts. Wait before retrying.', {}, { 'Retry-After': String(retryAfter) }),
      );
    },
  });
}
