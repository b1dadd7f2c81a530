import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { AggregatorRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';
import { DEFAULT_SHUTDOWN_GRACE_MS, closeServer } from '@feedback/service-runtime';

/**
 * The api as several processes on one port (`API_PROCESSES`), with Node's cluster: each process is a
 * whole api instance (its lease, its key-change queue, its relay), and the first process hands the
 * port's connections to them in turn. It serves their metrics on the metrics port, summed.
 */

/** What a process of the cluster tells the first one once it serves. */
const STARTED = 'api-started';
/** A process that ended after it had started is replaced, after this pause. */
const REPLACE_AFTER_MS = 1000;

/** In a process of the cluster: says it serves, and gives its metrics to the first process's scrapes. */
export function joinCluster(metrics: Registry): void {
  // Made for its side effect: in a process of a cluster, prom-client then answers the first
  // process's requests for metrics, with these.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics]);
  process.send?.(STARTED);
}

/**
 * Runs `processes` api processes and stays in front of them until SIGTERM or SIGINT, which it
 * passes on; it then waits for them to finish their own shutdown. A process that fails to start
 * ends the cluster with its exit code, as a single process would end; one that ends later is replaced.
 */
export async function runApiCluster(options: { processes: number; metricsPort: number; logger: Logger }): Promise<void> {
  const { logger } = options;
  const aggregator = new AggregatorRegistry();
  const started = new Set<Worker>();
  let stopping = false;

  const fork = (): void => {
    const worker = cluster.fork();
    worker.on('message', (message) => {
      if (message === STARTED) started.add(worker);
    });
    worker.on('exit', (code, signal) => {
      const hadStarted = started.delete(worker);
      if (stopping) return;
      if (!hadStarted) {
        logger.error('an api process failed to start: stopping the others', { code, signal });
        void stop(code || 1);
        return;
      }
      logger.error('an api process ended: starting another', { code, signal });
      setTimeout(() => stopping || fork(), REPLACE_AFTER_MS);
    });
  };

  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    const answer = (status: number, type: string, body: string) => response.writeHead(status, { 'content-type': type }).end(body);
    if (path === '/health/live') return answer(200, 'application/json', JSON.stringify({ status: 'live' }));
    if (path === '/health/ready') {
      const ready = !stopping && started.size === options.processes;
      return answer(ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'ready' : stopping ? 'shutting_down' : 'not_ready', processes: started.size }));
    }
    if (path === '/metrics') {
      aggregator.clusterMetrics().then(
        (body) => answer(200, aggregator.contentType, body),
        (error: Error) => answer(500, 'text/plain', `metrics unavailable: ${error.message}\n`),
      );
      return;
    }
    answer(404, 'application/json', JSON.stringify({ error: 'not_found' }));
  });

  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      logger.error('the api processes took too long to stop; exiting', { graceMs: DEFAULT_SHUTDOWN_GRACE_MS });
      process.exit(1);
    }, DEFAULT_SHUTDOWN_GRACE_MS + 5000).unref();
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    for (const worker of workers) worker.process.kill('SIGTERM');
    await Promise.all(workers.map((worker) => (worker.isDead() ? undefined : once(worker, 'exit'))));
    await closeServer(server).catch(() => undefined);
    logger.info('every api process stopped');
    process.exit(code);
  };
  // Ctrl-C reaches every process of the group at once; each api process stops on its own signal.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(0));

  server.listen(options.metricsPort);
  await once(server, 'listening');
  for (let n = 0; n < options.processes; n += 1) fork();
  logger.info('api processes starting', { processes: options.processes });
}
