import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import type { Logger } from '@feedback/logging';
import type { Registry } from 'prom-client';
import { healthRouter, registerReadinessMetric } from './health.js';
import { metricsRouter } from './metrics.js';
import type { ReadinessCheck } from './health.js';

/** How long shutdown may take before the process exits anyway, unless a service needs longer. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000;

/** Signals closer together than this are one request to stop. */
const REPEATED_SIGNAL_MS = 1000;

/** A step of shutdown, run in order: stop taking work first, close connections last. */
export interface ShutdownStep {
  name: string;
  run(): Promise<void>;
}

/**
 * Tracks whether the service is shutting down and runs its shutdown steps once, in order, each
 * failure logged but not stopping the rest.
 */
export class Lifecycle {
  private shuttingDown = false;
  private finished: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  shutdown(steps: ShutdownStep[]): Promise<void> {
    this.shuttingDown = true;
    this.finished ??= (async () => {
      for (const step of steps) {
        try {
          await step.run();
        } catch (error) {
          this.logger.error('shutdown step failed', { step: step.name, error });
        }
      }
      this.logger.info('shutdown complete');
    })();
    return this.finished;
  }

  /**
   * On SIGTERM or SIGINT, shut down and exit; a second signal, or `graceMs`, forces the exit. A
   * second signal within a second is the same request arriving twice (Ctrl-C reaches a process
   * group, and a supervisor such as concurrently forwards it again), not an operator insisting.
   */
  exitOnSignals(steps: () => ShutdownStep[], graceMs = DEFAULT_SHUTDOWN_GRACE_MS): void {
    let firstSignalAt = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.shuttingDown) {
        if (Date.now() - firstSignalAt < REPEATED_SIGNAL_MS) return;
        this.logger.warn('second signal: exiting without finishing shutdown', { signal });
        process.exit(1);
      }
      firstSignalAt = Date.now();
      this.logger.info('shutting down', { signal, graceMs });
      setTimeout(() => {
        this.logger.error('shutdown took too long; exiting', { graceMs });
        process.exit(1);
      }, graceMs).unref();
      void this.shutdown(steps()).then(() => process.exit(0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
}

/**
 * The internal operations port: the health routes and, given a registry, `GET /metrics`. Services
 * without a public HTTP edge have only this; the api has it beside its public port, so that
 * metrics are never served to the internet.
 */
export async function startHealthServer(options: {
  port: number;
  /** Default: "0.0.0.0". */
  host?: string;
  checks: Record<string, ReadinessCheck>;
  lifecycle: Lifecycle;
  metrics?: Registry;
}): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRouter(options.checks, () => options.lifecycle.isShuttingDown));
  if (options.metrics) {
    registerReadinessMetric(options.metrics, options.checks);
    app.use(metricsRouter(options.metrics));
  }
  const server = app.listen(options.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  return server;
}

/** Stops accepting connections and waits for open requests to finish. */
export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
