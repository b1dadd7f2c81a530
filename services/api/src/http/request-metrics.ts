import type { Request, RequestHandler } from 'express';
import { Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Which public surface a request came to, from its path as sent. */
function surfaceOf(request: Request): string {
  const path = request.originalUrl;
  if (path.startsWith('/api/v1')) return 'api';
  if (path.startsWith('/widget/v1')) return 'widget';
  if (path.startsWith('/dashboard/v1')) return 'dashboard';
  return 'other';
}

/**
 * Counts and times every request but the health probes, by surface, route pattern (never the path
 * as sent: ids and unknown paths would make a series each), method and status. A request no route
 * took is `unmatched`: an unknown path, and one refused before routing (a bad key, the failed
 * authentication limit, a body that is not JSON).
 */
export function requestMetrics(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'feedback_http_request_duration_seconds',
    help: 'Time to answer a request, by surface (api, widget, dashboard), route pattern, method and status',
    labelNames: ['surface', 'route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (request, response, next) => {
    if (request.path.startsWith('/health/')) return next();
    const end = duration.startTimer();
    // On close, not finish: a client that hangs up before the answer is a request too (`aborted`).
    response.on('close', () => {
      const route: unknown = request.route?.path;
      end({
        surface: surfaceOf(request),
        route: typeof route === 'string' ? route : 'unmatched',
        method: METHODS.has(request.method) ? request.method : 'other',
        status: response.writableFinished ? String(response.statusCode) : 'aborted',
      });
    });
    next();
  };
}
