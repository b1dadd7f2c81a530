import type { Queryable, RecoveryCheckpoint } from '@feedback/webhook-receiver';

/**
 * How far the recovery sweep has got in each list: where the next one starts. Only the sweep
 * moves it, and only forward; webhooks handled meanwhile do not (an earlier delivery may still be
 * failing).
 */
export interface Checkpoint {
  read(): Promise<RecoveryCheckpoint | undefined>;
  advance(to: RecoveryCheckpoint): Promise<void>;
}

const later = (a: string, b: string) => (Date.parse(b) > Date.parse(a) ? b : a);

export class MemoryCheckpoint implements Checkpoint {
  private at: RecoveryCheckpoint | undefined;

  async read(): Promise<RecoveryCheckpoint | undefined> {
    return this.at;
  }

  async advance(to: RecoveryCheckpoint): Promise<void> {
    this.at = this.at ? { suggestions: later(this.at.suggestions, to.suggestions), tickets: later(this.at.tickets, to.tickets) } : { ...to };
  }
}

/** One row per list in table `receiver_checkpoints`, moved forward with GREATEST so racing writers agree. */
export class PostgresCheckpoint implements Checkpoint {
  constructor(private readonly pool: Queryable) {}

  /**
   * Creates the table if missing. A `receiver_checkpoint` table of an earlier version (one time
   * for both lists, the latest of both) is taken over: each list starts from the earlier of that
   * time and `lookBackTo`, since that one time may have been past a change in one of the lists.
   */
  async createTable(lookBackTo: Date): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS receiver_checkpoints (list text PRIMARY KEY, processed_until timestamptz NOT NULL)`);
    const { rows } = await this.pool.query<{ old: string | null }>(`SELECT to_regclass('receiver_checkpoint')::text AS old`);
    if (rows[0]?.old) {
      await this.pool.query(
        `INSERT INTO receiver_checkpoints (list, processed_until)
         SELECT list, LEAST(processed_until, $1) FROM receiver_checkpoint, unnest(ARRAY['suggestions', 'tickets']) AS list
         ON CONFLICT (list) DO NOTHING`,
        [lookBackTo],
      );
    }
  }

  async read(): Promise<RecoveryCheckpoint | undefined> {
    const { rows } = await this.pool.query<{ list: string; processed_until: Date }>(`SELECT list, processed_until FROM receiver_checkpoints`);
    const of = (list: string) => rows.find((row) => row.list === list)?.processed_until.toISOString();
    const suggestions = of('suggestions');
    const tickets = of('tickets');
    return suggestions && tickets ? { suggestions, tickets } : undefined;
  }

  async advance(to: RecoveryCheckpoint): Promise<void> {
    await this.pool.query(
      `INSERT INTO receiver_checkpoints (list, processed_until) VALUES ('suggestions', $1), ('tickets', $2)
       ON CONFLICT (list) DO UPDATE SET processed_until = GREATEST(receiver_checkpoints.processed_until, EXCLUDED.processed_until)`,
      [new Date(to.suggestions), new Date(to.tickets)],
    );
  }
}
