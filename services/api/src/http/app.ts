import express from 'express';
import type { Express } from 'express';
import type { Logger } from '@feedback/logging';
import { healthRouter } from '@feedback/service-runtime';
import type { ReadinessCheck } from '@feedback/service-runtime';
import { secretKeyAuth } from '../auth/secret-key-auth.js';
import { createSuggestionRoute } from '../routes/api-v1/create-suggestion.js';
import type { RouteContext } from '../routes/route-context.js';
import { errorHandler, notFound } from './error-handler.js';
import { requestContext } from './request-context.js';

export function buildApp(options: {
  context: RouteContext;
  logger: Logger;
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown: () => boolean;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(healthRouter(options.readiness, options.isShuttingDown));
  app.use(requestContext(options.logger));
  app.use(express.json({ limit: '256kb' }));

  const apiV1 = express.Router();
  apiV1.use(secretKeyAuth(options.context.rpc));
  apiV1.use(createSuggestionRoute(options.context));
  app.use('/api/v1', apiV1);

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
