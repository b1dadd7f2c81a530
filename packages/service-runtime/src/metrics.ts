import { Router } from 'express';
import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A service's own Prometheus registry: the Node.js process metrics (CPU, memory, event loop lag,
 * garbage collection) and whatever the service adds, every series labelled with the service.
 * One registry per service rather than prom-client's global one, so that services started in one
 * process (as the tests do) keep their figures apart.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `GET /metrics` in Prometheus' text format. For an internal port only: it describes the service's load. */
export function metricsRouter(registry: Registry): Router {
  const router = Router();
  router.get('/metrics', async (_request, response, next) => {
    try {
      const body = await registry.metrics();
      response.type(registry.contentType).send(body);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
