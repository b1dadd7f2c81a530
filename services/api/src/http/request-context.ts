import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { logLine } from '@feedback/logging';
import type { Logger } from '@feedback/logging';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Id of this request, echoed in the X-Request-Id header and on every log line. */
      id: string;
      log: Logger;
    }
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the caller's, if it sent a safe one) and a logger tagged with it, made
 * when first used: most requests log only their request line, written here without one.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const incoming = request.get('x-request-id');
    const id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    request.id = id;
    Object.defineProperty(request, 'log', {
      configurable: true,
      enumerable: true,
      get: () => {
        const log = logger.child({ requestId: id });
        Object.defineProperty(request, 'log', { configurable: true, enumerable: true, writable: true, value: log });
        return log;
      },
    });
    response.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      // Probes arrive every few seconds; logging each would drown the rest.
      if (request.path.startsWith('/health/') && response.statusCode === 200) return;
      // The route's pattern, never the path as sent: paths carry end users' ids (often emails),
      // which an erasure could not take back out of the logs.
      const route: unknown = request.route?.path;
      logLine(logger, 'info', 'request', {
        requestId: id,
        method: request.method,
        route: typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched',
        status: response.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
