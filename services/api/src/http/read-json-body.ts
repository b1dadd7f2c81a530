import { isUtf8 } from 'node:buffer';
import express from 'express';
import type { Request, RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { refuseUnstorableText } from './refuse-unstorable-text.js';
import { requireJsonBody } from './require-json-body.js';

/**
 * A body sent as UTF-8 whose bytes are not (a surrogate encoded as bytes, say) is not JSON: read,
 * those bytes would become U+FFFD, and the record would differ from what was sent.
 */
function refuseBytesNotUtf8(_request: unknown, _response: unknown, body: Buffer, encoding: string | null): void {
  if (encoding?.toLowerCase() === 'utf-8' && !isUtf8(body)) {
    throw Object.assign(new Error('The request body is not UTF-8.'), { status: 400, type: 'entity.parse.failed' });
  }
}

/**
 * Reads a JSON body (at most 256 KB) and refuses one sent as another type, or a request whose
 * body, query or path parameters hold text that cannot be stored. Every surface reads its bodies
 * here, so this is the one place that refuses such text. Mounted only once the caller is known
 * (and on /api/v1 once its scope is checked): a revoked key gets its 401, and a key without the
 * scope its 403, whatever the request carried, and the body of a request that is refused anyway
 * is never parsed.
 */
export const readJsonBody: RequestHandler[] = [express.json({ limit: '256kb', verify: refuseBytesNotUtf8 }), requireJsonBody, refuseUnstorableText];

/**
 * The JSON body as the object a dashboard command takes; no body is an empty one. Any other JSON
 * value (an array, a string) is refused as a whole rather than read as fields.
 */
export function bodyObject(request: Request): Record<string, unknown> {
  const { body } = request as { body: unknown };
  if (body === undefined) return {};
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new ApiError('validation_failed', 'The body must be a JSON object.', { field: '' });
}
