import type { Logger } from '@feedback/logging';

export interface PeriodicTaskOptions {
  /** Names the task in logs. */
  name: string;
  /** Time from the end of one run to the start of the next. */
  intervalMs: number;
  run: () => Promise<void>;
  logger: Logger;
}

/**
 * Runs housekeeping every `intervalMs`, never two runs at once (the next is timed from the end of
 * the last), a failure logged and tried again at the next interval. The timer does not keep the
 * process alive; `stop` waits for a run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: PeriodicTaskOptions) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.options
        .run()
        .catch((error: unknown) => {
          this.options.logger.warn(`${this.options.name} failed; tried again at the next interval`, { error });
        })
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }
}

/** One kind of old record to delete: answers how many it deleted. */
export interface RetentionPrune {
  /** What is deleted, for the log line: "published outbox events older than 168 hours". */
  what: string;
  prune: () => Promise<number>;
}

/** Housekeeping every ten minutes, unless told otherwise. */
export const DEFAULT_PRUNE_INTERVAL_MS = 600_000;

/**
 * Deletes records past their retention, each kind on its own: one that fails (logged) does not
 * keep the others. Every instance of a service may run it; the deletes only take what is old, so
 * two instances pruning at once is harmless.
 */
export function retentionPruning(logger: Logger, prunes: readonly RetentionPrune[], intervalMs = DEFAULT_PRUNE_INTERVAL_MS): PeriodicTask {
  return new PeriodicTask({
    name: 'retention pruning',
    intervalMs,
    logger,
    run: async () => {
      for (const { what, prune } of prunes) {
        try {
          const deleted = await prune();
          if (deleted > 0) logger.info(`${what} deleted`, { deleted });
        } catch (error) {
          logger.warn(`deleting ${what} failed; tried again at the next interval`, { error });
        }
      }
    },
  });
}
