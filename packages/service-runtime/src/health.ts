import { Router } from 'express';

/** A dependency the service needs to do its work; readiness is the AND of all of them. */
export type ReadinessCheck = () => boolean | Promise<boolean>;

/**
 * `GET /health/live`: the process is up (restart it if not).
 * `GET /health/ready`: every dependency answers (send it work only if so), 503 otherwise.
 */
export function healthRouter(checks: Record<string, ReadinessCheck>, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/health/live', (_request, response) => {
    response.json({ status: 'live' });
  });
  router.get('/health/ready', async (_request, response) => {
    const results: Record<string, 'up' | 'down'> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          results[name] = (await check()) ? 'up' : 'down';
        } catch {
          results[name] = 'down';
        }
      }),
    );
    const ready = !isShuttingDown() && Object.values(results).every((status) => status === 'up');
    response
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : isShuttingDown() ? 'shutting_down' : 'not_ready', checks: results });
  });
  return router;
}

/** The readiness of a service that needs its broker connection and its database. */
export function brokerAndDatabaseChecks(
  broker: { readonly healthy: boolean },
  database: { $queryRaw(query: TemplateStringsArray): Promise<unknown> },
): Record<string, ReadinessCheck> {
  return {
    broker: () => broker.healthy,
    database: async () => (await database.$queryRaw`SELECT 1`, true),
  };
}
