import type { Request, RequestHandler } from 'express';
import { createWebhookHandler } from './webhook-handler.js';
import type { WebhookHandlerOptions } from './webhook-handler.js';

/** Reads the request body as sent, unless a body parser already did (then answers what it left). */
async function rawBodyOf(request: Request): Promise<unknown> {
  if (Buffer.isBuffer(request.body) || typeof request.body === 'string') return request.body;
  // A parser that ran first consumed the stream and left an object: verification must refuse it.
  if (request.body !== undefined && request.readableEnded) return request.body;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Express middleware for a webhook route: reads the raw body itself, then verifies, skips
 * duplicates, calls `onEvent`, and answers (200 handled or duplicate; 400 refused, with the
 * reason in `error`; 409 in progress elsewhere; 500 handler failed). Mount it before
 * `express.json()`, or on a route that no JSON parser sees.
 */
export function webhookMiddleware(options: WebhookHandlerOptions): RequestHandler {
  const handler = createWebhookHandler(options);
  return (request, response, next) => {
    rawBodyOf(request)
      .then((rawBody) => handler.handle({ rawBody, headers: request.headers }))
      .then((answer) => {
        if (answer.body['error'] === 'body_not_raw') {
          answer.body['message'] = 'The body was parsed before verification: mount webhookMiddleware before express.json(), or on a route without a JSON parser.';
        }
        response.status(answer.status).json(answer.body);
      })
      .catch(next);
  };
}
