import { Router } from 'express';

/** A dependency the service needs to do its work; readiness is the AND of all of them. */
export type ReadinessCheck = () => boolean | Promise<boolean>;

/**
 * A check that has not answered by then counts as down: a probe waiting behind a busy connection
 * pool would otherwise outlast the orchestrator's own time limit (one second by default in
 * Kubernetes) and be failed without a word of why.
 */
export const READINESS_CHECK_TIME_LIMIT_MS = 800;

function withinTimeLimit(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_CHECK_TIME_LIMIT_MS);
  });
  return Promise.race([Promise.resolve().then(check), late]).finally(() => clearTimeout(timer));
}

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
          results[name] = (await withinTimeLimit(check)) ? 'up' : 'down';
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
