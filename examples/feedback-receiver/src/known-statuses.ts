import type { Queryable } from '@feedback/webhook-receiver';

export type RecordKind = 'suggestion' | 'ticket';

/** What remembering a record's status at a time found. */
export interface StatusChange {
  /** False when a newer change is known already: this one is out of date, and not told. */
  latest: boolean;
  /** Whether this change (or a newer one) has been told already, by a webhook or the sweep. */
  told: boolean;
  /** The status known before; undefined for a record seen for the first time. */
  previous: string | undefined;
}

/**
 * The latest known status of each suggestion and ticket, as of its `updated_at`, and the latest
 * change told to its author. Webhooks and the recovery sweep both write here. A change is marked
 * told only after the notification went out, so a notifier that fails has it told on the retry
 * (at least once: a webhook and a sweep that meet the same change at the same moment may both tell it).
 */
export interface KnownStatuses {
  remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange>;
  /** The change at `updatedAt` was told, or needed no telling: it is not told again. */
  markTold(kind: RecordKind, id: number, updatedAt: string): Promise<void>;
}

export class MemoryKnownStatuses implements KnownStatuses {
  private readonly known = new Map<string, { status: string; updatedAt: number; toldAt: number }>();

  async remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange> {
    const key = `${kind}:${id}`;
    const before = this.known.get(key);
    const at = Date.parse(updatedAt);
    const toldAt = before?.toldAt ?? Number.NEGATIVE_INFINITY;
    if (!before || before.updatedAt < at) this.known.set(key, { status, updatedAt: at, toldAt });
    return { latest: !before || before.updatedAt <= at, told: toldAt >= at, previous: before?.status };
  }

  async markTold(kind: RecordKind, id: number, updatedAt: string): Promise<void> {
    const entry = this.known.get(`${kind}:${id}`);
    if (entry) entry.toldAt = Math.max(entry.toldAt, Date.parse(updatedAt));
  }
}

/** The same in table `receiver_known_statuses`, moved only forward in `updated_at` and `told_at`. */
export class PostgresKnownStatuses implements KnownStatuses {
  constructor(private readonly pool: Queryable) {}

  async createTable(): Promise<void> {
    await this.pool.query(`
      CREATE TABLE IF NOT EXISTS receiver_known_statuses (
        kind text NOT NULL,
        id bigint NOT NULL,
        status text NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (kind, id)
      )`);
    // Tables made by earlier versions of this example lack it.
    await this.pool.query('ALTER TABLE receiver_known_statuses ADD COLUMN IF NOT EXISTS told_at timestamptz');
  }

  async remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange> {
    // The row as it was (locked, so two writers of one record take turns), and the write, which
    // only moves forward, in one statement.
    const { rows } = await this.pool.query<{ previous: string | null; latest: boolean; told: boolean }>(
      `WITH previous AS (
         SELECT status, updated_at, told_at FROM receiver_known_statuses WHERE kind = $1 AND id = $2 FOR UPDATE
       ), written AS (
         INSERT INTO receiver_known_statuses AS known (kind, id, status, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at
           WHERE known.updated_at < EXCLUDED.updated_at
       )
       SELECT (SELECT status FROM previous) AS previous,
              coalesce((SELECT updated_at <= $4::timestamptz FROM previous), true) AS latest,
              coalesce((SELECT told_at >= $4::timestamptz FROM previous), false) AS told`,
      [kind, id, status, updatedAt],
    );
    const row = rows[0]!;
    return { latest: row.latest, told: row.told, previous: row.previous ?? undefined };
  }

  async markTold(kind: RecordKind, id: number, updatedAt: string): Promise<void> {
    await this.pool.query(
      `UPDATE receiver_known_statuses SET told_at = $3 WHERE kind = $1 AND id = $2 AND (told_at IS NULL OR told_at < $3)`,
      [kind, id, updatedAt],
    );
  }
}
