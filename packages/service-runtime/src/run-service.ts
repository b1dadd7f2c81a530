import { ConfigError } from '@feedback/config';
import { createLogger } from '@feedback/logging';
import type { Logger } from '@feedback/logging';
import type { Lifecycle, ShutdownStep } from './lifecycle.js';

/** Exit status for a configuration error (sysexits EX_CONFIG), so supervisors can tell it apart. */
export const EXIT_CONFIG = 78;

export interface RunnableService {
  lifecycle: Lifecycle;
  shutdownSteps(): ShutdownStep[];
  /** How long shutdown may take before the process exits anyway. Default: DEFAULT_SHUTDOWN_GRACE_MS. */
  shutdownGraceMs?: number;
}

/** The configuration, or the process ends naming every bad variable (EXIT_CONFIG). */
export function readConfigOrExit<C>(name: string, readConfig: () => { config: C; describe(): Record<string, string> }): { config: C; describe(): Record<string, string> } {
  try {
    return readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
}

/**
 * The whole of a service's `main.ts`: read and validate configuration (a bad variable stops the
 * process with a message naming it), log the effective configuration without secrets, start,
 * and shut down gracefully on SIGTERM or SIGINT.
 */
export async function runService<C extends { logLevel: string }>(options: {
  name: string;
  readConfig(): { config: C; describe(): Record<string, string> };
  start(config: C, logger: Logger): Promise<RunnableService>;
}): Promise<void> {
  const loaded = readConfigOrExit(options.name, options.readConfig);
  const logger = createLogger({ service: options.name, level: loaded.config.logLevel });
  logger.info('starting', { configuration: loaded.describe() });
  // Until the service has started there is nothing to finish: a signal then ends the process at
  // once (as PID 1 in a container, a signal nobody listens for would be ignored until the kill).
  const duringStartUp = (signal: NodeJS.Signals) => {
    logger.warn('signal during start-up: exiting', { signal });
    process.exit(1);
  };
  process.on('SIGTERM', duringStartUp).on('SIGINT', duringStartUp);
  try {
    const service = await options.start(loaded.config, logger);
    process.off('SIGTERM', duringStartUp).off('SIGINT', duringStartUp);
    service.lifecycle.exitOnSignals(service.shutdownSteps, service.shutdownGraceMs);
    logger.info('ready');
  } catch (error) {
    logger.error('start-up failed', { error });
    process.exit(1);
  }
}
