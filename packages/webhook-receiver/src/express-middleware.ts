import type { Request, RequestHandler } from 'express';
import { createWebhookHandler } from './webhook-handler.js';
import type { WebhookHandlerOptions } from './webhook-handler.js';

export interface WebhookMiddlewareOptions extends WebhookHandlerOptions {
  /**
   * Largest body read, in bytes: the route is public, and the body is read before its signature
   * can be checked. A bigger one is answered 413 `body_too_large` without being read to the end.
   * Default: 1048576 (1 MiB; the api takes request bodies up to 256 KiB, and an event's envelope
   * adds little to the record it carries).
   */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

/** Reads the request body as sent, unless a body parser already did (then answers what it left). */
async function rawBodyOf(request: Request, maxBytes: number): Promise<unknown> {
  if (Buffer.isBuffer(request.body) || typeof request.body === 'string') return request.body;
  // A parser that ran first consumed the stream and left an object: verification must refuse it.
  if (request.body !== undefined && request.readableEnded) return request.body;
  if (Number(request.get('content-length') ?? 0) > maxBytes) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    // Without a length up front (chunked), or with a false one: stop at the limit.
    if (length > maxBytes) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Express middleware for a webhook route: reads the raw body itself (at most `maxBodyBytes`),
 * then verifies, skips duplicates, calls `onEvent`, and answers (200 handled or duplicate; 400
 * refused, with the reason in `error`; 409 in progress elsewhere; 413 body too large; 500 handler
 * failed). Mount it before `express.json()`, or on a route that no JSON parser sees.
 */
export function webhookMiddleware(options: WebhookMiddlewareOptions): RequestHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0)) throw new TypeError(`maxBodyBytes must be a positive whole number of bytes; got ${maxBodyBytes}`);
  const handler = createWebhookHandler(options);
  return (request, response, next) => {
    rawBodyOf(request, maxBodyBytes)
      .then((rawBody) => handler.handle({ rawBody, headers: request.headers }))
      .then((answer) => {
        if (answer.body['error'] === 'body_not_raw') {
          answer.body['message'] = 'The body was parsed before verification: mount webhookMiddleware before express.json(), or on a route without a JSON parser.';
        }
        response.status(answer.status).json(answer.body);
      })
      .catch((error: unknown) => {
        if (!(error instanceof BodyTooLarge)) return next(error);
        // The rest is not read: the connection closes once the answer is sent.
        response.set('connection', 'close').status(413).json({ error: 'body_too_large', message: `The body is larger than ${maxBodyBytes} bytes (maxBodyBytes).` });
      });
  };
}
