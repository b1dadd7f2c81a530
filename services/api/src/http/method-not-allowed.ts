import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

/** Mounted after a path's handlers: any other method gets 405 with the Allow header. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (request, _response, next) => {
    next(
      new ApiError('method_not_allowed', `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, { allowed_methods: allowed }, {
        Allow: allowed.join(', '),
      }),
    );
  };
}
