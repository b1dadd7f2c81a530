import { Router } from 'express';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/**
 * A dependency the service needs to do its work: up (true), down (false), or `degraded`: away, but
 * the service still does its work without it for now. Ready unless one is down.
 */
export type CheckStatus = 'up' | 'degraded' | 'down';
export type ReadinessCheck = () => boolean | CheckStatus | Promise<boolean | CheckStatus>;

/**
 * A check that has not answered by then counts as down: a probe waiting behind a busy connection
 * pool would otherwise outlast the orchestrator's own time limit (one second by default in
 * Kubernetes) and be failed without a word of why.
 */
export const READINESS_CHECK_TIME_LIMIT_MS = 800;

async function statusOf(check: ReadinessCheck): Promise<CheckStatus> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_CHECK_TIME_LIMIT_MS);
  });
  try {
    const answer = await Promise.race([Promise.resolve().then(check), late]);
    return answer === true ? 'up' : answer === false ? 'down' : answer;
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The readiness checks as a metric, evaluated at each scrape: `feedback_dependency_up{dependency}`
 * is 1 while the check answers up, 0 while it is down or degraded. A worker has no Service in
 * front of it, so nothing acts on its readiness: without this, a worker cut off from its broker
 * would go on serving metrics and no alert would see that it delivers nothing.
 */
export function registerReadinessMetric(registry: Registry, checks: Record<string, ReadinessCheck>): void {
  if (registry.getSingleMetric('feedback_dependency_up')) return;
  new Gauge({
    name: 'feedback_dependency_up',
    help: 'Whether a dependency of the service answers its readiness check (1) or not (0: down, or away while the service goes on without it).',
    labelNames: ['dependency'],
    registers: [registry],
    // The api's processes of one instance, summed by its first process: down if one of them is.
    aggregator: 'min',
    async collect() {
      // Every check answered first, then set at once: two scrapes at the same moment each see
      // every series.
      const statuses = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await statusOf(check)] as const));
      for (const [name, status] of statuses) this.set({ dependency: name }, status === 'up' ? 1 : 0);
    },
  });
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
    const results: Record<string, CheckStatus> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        results[name] = await statusOf(check);
      }),
    );
    const ready = !isShuttingDown() && Object.values(results).every((status) => status !== 'down');
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
