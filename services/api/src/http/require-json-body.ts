import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

/**
 * A body sent as anything but JSON is 415 `unsupported_media_type`: unread, it would otherwise
 * reach validation as no body at all and be answered "must be object", which points the client
 * at the wrong fault. A request without a body passes (POSTs that take none).
 */
export const requireJsonBody: RequestHandler = (request, _response, next) => {
  // An empty body (Content-Length: 0, as fetch sends for a POST without one) is no body, whatever
  // its type; express's own test would count it as one.
  const length = request.get('content-length');
  const hasContent = request.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
  if (hasContent && !request.is('application/json')) {
    return next(new ApiError('unsupported_media_type', `Send the body as application/json (it came as ${request.get('content-type') ?? 'no Content-Type'}).`));
  }
  next();
};
