import type pg from 'pg';
import type { Logger } from '@feedback/logging';

export interface OutboxPrunerOptions {
  /** How long a published event stays in the outbox. */
  retentionHours: number;
  /** Time between prunes. Default: 600000 (ten minutes). */
  intervalMs?: number;
  /** Rows one statement deletes, so no prune holds many locks or one long transaction. Default: 10000. */
  batchSize?: number;
}

/**
 * Deletes published outbox events once they are older than the retention: the outbox is the way
 * to the broker, not a history, and its payloads hold end users' names and texts. An unpublished
 * event is never deleted, however old (the broker may have been away). Every api instance may
 * prune; the statements only delete what is published and old, so running twice is harmless.
 */
export class OutboxPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly options: OutboxPrunerOptions,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Deletes what is published and older than the retention; answers how many events. */
  async pruneOnce(): Promise<number> {
    const hours = this.options.retentionHours;
    const batchSize = this.options.batchSize ?? 10_000;
    // Events are published in position order, so the old ones come first: the scan stops at the
    // first event that is recent or unpublished, and reads only what it is about to delete.
    const { rows } = await this.pool.query<{ boundary: string | null }>(
      `SELECT coalesce(
         (SELECT position FROM api.outbox_events
          WHERE published_at IS NULL OR published_at >= now() - make_interval(hours => $1)
          ORDER BY position LIMIT 1),
         (SELECT max(position) + 1 FROM api.outbox_events)) AS boundary`,
      [hours],
    );
    const boundary = rows[0]?.boundary;
    if (boundary === null || boundary === undefined) return 0;
    let deleted = 0;
    for (;;) {
      // The age is checked again row by row: an event committed since the boundary was found,
      // with a lower position, is unpublished and stays.
      const { rowCount } = await this.pool.query(
        `DELETE FROM api.outbox_events WHERE position IN (
           SELECT position FROM api.outbox_events
           WHERE position < $1 AND published_at < now() - make_interval(hours => $2)
           ORDER BY position LIMIT $3)`,
        [boundary, hours, batchSize],
      );
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < batchSize || this.stopped) return deleted;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pruneOnce()
        .then((deleted) => {
          if (deleted > 0) this.logger.info('published outbox events past their retention deleted', { deleted, retentionHours: this.options.retentionHours });
        })
        .catch((error: unknown) => this.logger.warn('outbox prune failed; tried again at the next interval', { error }))
        .finally(() => this.schedule());
    }, this.options.intervalMs ?? 600_000);
    this.timer.unref();
  }
}
