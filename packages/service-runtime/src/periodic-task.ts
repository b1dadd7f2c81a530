import type { Logger } from '@feedback/logging';

export interface PeriodicTaskOptions {
  /** Names the task in logs. */
  name: string;
  /** Time from the end of one run to the start of the next. */
  intervalMs: number;
  /** Time from `start` to the first run. Default: `intervalMs`. */
  firstRunAfterMs?: number;
  /** `signal` is aborted when the service stops: a long run ends early at its next step. */
  run: (signal: AbortSignal) => Promise<void>;
  logger: Logger;
}

/**
 * Runs housekeeping every `intervalMs`, never two runs at once (the next is timed from the end of
 * the last), a failure logged and tried again at the next interval. The timer does not keep the
 * process alive; `stop` tells a run in progress to end (its signal) and waits for it.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(private readonly options: PeriodicTaskOptions) {}

  start(): void {
    this.schedule(this.options.firstRunAfterMs ?? this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs = this.options.intervalMs): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.running = this.options
        .run(this.stopping.signal)
        .catch((error: unknown) => {
          this.options.logger.warn(`${this.options.name} failed; tried again at the next interval`, { error });
        })
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, delayMs);
    this.timer.unref();
  }
}

/** One kind of old record to delete: answers how many it deleted. */
export interface RetentionPrune {
  /** What is deleted, for the log line: "published outbox events older than 168 hours". */
  what: string;
  /** Deletes in batches, stopping early once `signal` is aborted. */
  prune: (signal: AbortSignal) => Promise<number>;
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
    run: async (signal) => {
      for (const { what, prune } of prunes) {
        if (signal.aborted) return;
        try {
          const deleted = await prune(signal);
          if (deleted > 0) logger.info(`${what} deleted`, { deleted });
        } catch (error) {
          logger.warn(`deleting ${what} failed; tried again at the next interval`, { error });
        }
      }
    },
  });
}
