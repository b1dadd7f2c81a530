import express from 'express';
import type { Express, RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';
import { healthRouter } from '@feedback/service-runtime';
import type { ReadinessCheck } from '@feedback/service-runtime';
import { buildOpenApiDocument } from '../openapi/build-openapi-document.js';
import { OPENAPI_ROUTE } from '../openapi/openapi-route.js';
import { apiV1Router } from '../routes/api-v1/api-v1-router.js';
import { dashboardRouter } from '../routes/dashboard-v1/dashboard-router.js';
import { widgetRouter } from '../routes/widget-v1/widget-router.js';
import type { Surface, TrustProxy } from '../config.js';
import type { RouteContext } from '../routes/route-context.js';
import { mountRoutes } from '../routes/route-definition.js';
import { dashboardPages } from './dashboard-pages.js';
import { errorHandler, notFound } from './error-handler.js';
import { readJsonBody } from './read-json-body.js';
import { namePathParameterNotText } from './refuse-unstorable-text.js';
import { requestContext } from './request-context.js';
import { requestMetrics } from './request-metrics.js';

export interface AppOptions {
  context: RouteContext;
  logger: Logger;
  /** Authenticates `/api/v1` requests by secret key. */
  secretKeyAuth: RequestHandler;
  /** Limit failed authentications per client address, one limiter per surface. */
  failureRateLimits: { api: RequestHandler; dashboard: RequestHandler };
  /** Counted before any widget request: per client address, and per public key. */
  widgetLimit: RequestHandler;
  /** Authenticates `/widget/v1` requests by public key. */
  publicKeyAuth: RequestHandler;
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown: () => boolean;
  /** Express "trust proxy": which proxies may set the client address. */
  trustProxy: TrustProxy;
  /** Base address customers call, for the OpenAPI document's server. */
  publicBaseUrl: string;
  /** Where request counts and durations go; served on the internal metrics port, not here. */
  metrics?: Registry;
  /** The built dashboard page (apps/dashboard/dist), served at /dashboard. Default: none served. */
  dashboardDirectory?: string;
  /** The surfaces served; the others answer 404. Default: all three. */
  surfaces?: readonly Surface[];
}

const doNotStore: RequestHandler = (_request, response, next) => {
  response.set('Cache-Control', 'no-store');
  next();
};

/**
 * Every answer is JSON for a program. A browser shown one anyway must not sniff it into a page or
 * run anything in it: a delivery's history carries the start of a receiver's answer, which may be
 * HTML of anyone's choosing.
 */
const jsonOnly: RequestHandler = (_request, response, next) => {
  response.set('X-Content-Type-Options', 'nosniff');
  response.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  next();
};

export function buildApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(jsonOnly);
  app.set('trust proxy', options.trustProxy);
  app.use(requestContext(options.logger));
  if (options.metrics) app.use(requestMetrics(options.metrics));
  app.use(healthRouter(options.readiness, options.isShuttingDown));

  // Public, no key: built once from the same schemas and routes the server uses.
  const openApiDocument = buildOpenApiDocument({ publicBaseUrl: options.publicBaseUrl });
  mountRoutes(app, [OPENAPI_ROUTE], { document: openApiDocument }, '/api/v1');

  // Answers are a team's own data, and some carry a secret shown once: no cache keeps them.
  app.use(['/api/v1', '/widget/v1', '/dashboard/v1'], doNotStore);
  const serves = (surface: Surface) => (options.surfaces ?? ['api', 'widget', 'dashboard']).includes(surface);
  if (serves('api')) app.use('/api/v1', apiV1Router(options.context, [options.failureRateLimits.api, options.secretKeyAuth]));

  // Bodies are read once the caller is known: on /api/v1 by each route after its scope check; on
  // the dashboard before its routes, since signing in sends its credentials in the body.
  if (serves('widget')) app.use('/widget/v1', options.widgetLimit, options.publicKeyAuth, ...readJsonBody, widgetRouter(options.context));
  if (serves('dashboard')) {
    app.use('/dashboard/v1', options.failureRateLimits.dashboard, ...readJsonBody, dashboardRouter(options.context));
    if (options.dashboardDirectory) app.use(dashboardPages(options.dashboardDirectory, options.logger));
  }

  app.use(notFound);
  app.use(namePathParameterNotText(Object.keys(openApiDocument.paths)));
  app.use(errorHandler);
  return app;
}
