import type { Queryable } from '@feedback/webhook-receiver';

export type RecordKind = 'suggestion' | 'ticket';

/** What remembering a record's status changed: whether it was news, and the status it replaced. */
export interface StatusChange {
  /** False when what was remembered is as new or newer: a duplicate, or an older copy. */
  changed: boolean;
  /** The status known before; undefined for a record seen for the first time. */
  previous: string | undefined;
}

/**
 * The latest known status of each suggestion and ticket, as of its `updated_at`. Webhooks and the
 * recovery sweep both write here, so whichever tells of a change first is the one that acts on it.
 */
export interface KnownStatuses {
  remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange>;
}

export class MemoryKnownStatuses implements KnownStatuses {
  private readonly known = new Map<string, { status: string; updatedAt: number }>();

  async remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange> {
    const key = `${kind}:${id}`;
    const before = this.known.get(key);
    const at = Date.parse(updatedAt);
    if (before && before.updatedAt >= at) return { changed: false, previous: before.status };
    this.known.set(key, { status, updatedAt: at });
    return { changed: true, previous: before?.status };
  }
}

/** The same in table `receiver_known_statuses`, moved only forward in `updated_at`. */
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
  }

  async remember(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusChange> {
    // RETURNING answers a row only when this write won; `previous` is read in the same statement.
    const { rows } = await this.pool.query<{ previous: string | null }>(
      `WITH previous AS (SELECT status FROM receiver_known_statuses WHERE kind = $1 AND id = $2)
       INSERT INTO receiver_known_statuses AS known (kind, id, status, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at
         WHERE known.updated_at < EXCLUDED.updated_at
       RETURNING (SELECT status FROM previous) AS previous`,
      [kind, id, status, updatedAt],
    );
    if (rows.length === 0) return { changed: false, previous: undefined };
    return { changed: true, previous: rows[0]!.previous ?? undefined };
  }
}
