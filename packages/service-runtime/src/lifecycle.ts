import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import type { Logger } from '@feedback/logging';
import { healthRouter } from './health.js';
import type { ReadinessCheck } from './health.js';

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

  /** On SIGTERM or SIGINT, shut down and exit; a second signal, or `graceMs`, forces the exit. */
  exitOnSignals(steps: () => ShutdownStep[], graceMs = 25_000): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.shuttingDown) process.exit(1);
      this.logger.info('shutting down', { signal });
      setTimeout(() => {
        this.logger.error('shutdown took too long; exiting', { graceMs });
        process.exit(1);
      }, graceMs).unref();
      void this.shutdown(steps()).then(() => process.exit(0));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
}

/** For services without a public HTTP edge: a small server answering only the health routes. */
export async function startHealthServer(options: {
  port: number;
  /** Default: "0.0.0.0". */
  host?: string;
  checks: Record<string, ReadinessCheck>;
  lifecycle: Lifecycle;
}): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRouter(options.checks, () => options.lifecycle.isShuttingDown));
  const server = app.listen(options.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  return server;
}

/** Stops accepting connections and waits for open requests to finish. */
export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
