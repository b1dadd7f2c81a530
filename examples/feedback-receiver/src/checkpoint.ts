import type { Queryable } from '@feedback/webhook-receiver';

/**
 * How far the recovery sweep has got: where the next one starts. Only the sweep moves it, and
 * only forward; webhooks handled meanwhile do not (an earlier delivery may still be failing).
 */
export interface Checkpoint {
  read(): Promise<Date | undefined>;
  advance(to: string | Date): Promise<void>;
}

export class MemoryCheckpoint implements Checkpoint {
  private at: Date | undefined;

  async read(): Promise<Date | undefined> {
    return this.at;
  }

  async advance(to: string | Date): Promise<void> {
    const next = new Date(to);
    if (!this.at || next > this.at) this.at = next;
  }
}

/** One row in table `receiver_checkpoint`, moved forward with GREATEST so racing writers agree. */
export class PostgresCheckpoint implements Checkpoint {
  constructor(private readonly pool: Queryable) {}

  async createTable(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS receiver_checkpoint (id int PRIMARY KEY CHECK (id = 1), processed_until timestamptz NOT NULL)`);
  }

  async read(): Promise<Date | undefined> {
    const { rows } = await this.pool.query<{ processed_until: Date }>(`SELECT processed_until FROM receiver_checkpoint WHERE id = 1`);
    return rows[0]?.processed_until;
  }

  async advance(to: string | Date): Promise<void> {
    await this.pool.query(
      `INSERT INTO receiver_checkpoint (id, processed_until) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET processed_until = GREATEST(receiver_checkpoint.processed_until, EXCLUDED.processed_until)`,
      [new Date(to)],
    );
  }
}
