import type { Queryable } from '@feedback/webhook-receiver';

export type RecordKind = 'suggestion' | 'ticket';

/** What the receiver knows of a record's status once it took an answer into account. */
export interface StatusKnown {
  /** The status known now. */
  status: string;
  /** Whether the change that brought it has been told (or needed no telling). */
  told: boolean;
}

/** What an observed status changed. A change it makes is new, so never told yet. */
export interface StatusObserved {
  /** Whether the status known changed. */
  changed: boolean;
  /** The status known before; undefined for a record seen for the first time. */
  previous: string | undefined;
}

/**
 * The latest known status of each suggestion and ticket, the time of the change that brought it,
 * and whether that change has been told to the author. Webhooks and the recovery sweep both write
 * here. A change is marked told only once the notifier took it, so one that failed is told on the
 * delivery's retry (at least once: a webhook and a sweep meeting the same change at the same moment
 * may both tell it).
 *
 * Times decide which change is the latest, but two kinds of answer carry different times: a
 * `*.status_changed` webhook says when the status changed; a record as the sweep lists it (or as a
 * `*.created` event carries it) says only when the record last changed in any way (a comment, a
 * note), which is no earlier. So a status observed equal to the one known is no change, and a
 * status change older than the time known is still told if it brought the status known now.
 */
export interface KnownStatuses {
  /** A status change a webhook announced, at its time: taken if newer than the change known. */
  changed(kind: RecordKind, id: number, status: string, at: string): Promise<StatusKnown>;
  /** A record's status as of its `updated_at`: taken if newer and different. */
  observed(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusObserved>;
  /** The change that brought `status` has been told; nothing if the status known is another by now. */
  markTold(kind: RecordKind, id: number, status: string): Promise<void>;
}

interface Known {
  status: string;
  /** When the change that brought `status` was made (or, observed, no later than that). */
  at: number;
  /** `at` of the change last told. */
  toldAt: number | undefined;
}

export class MemoryKnownStatuses implements KnownStatuses {
  private readonly known = new Map<string, Known>();

  async changed(kind: RecordKind, id: number, status: string, at: string): Promise<StatusKnown> {
    const key = `${kind}:${id}`;
    const time = Date.parse(at);
    const before = this.known.get(key);
    if (!before || before.at < time) this.known.set(key, { status, at: time, toldAt: before?.toldAt });
    return this.answer(this.known.get(key)!);
  }

  async observed(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusObserved> {
    const key = `${kind}:${id}`;
    const time = Date.parse(updatedAt);
    const before = this.known.get(key);
    const changed = !before || (before.at < time && before.status !== status);
    if (changed) this.known.set(key, { status, at: time, toldAt: before?.toldAt });
    return { changed, previous: before?.status };
  }

  async markTold(kind: RecordKind, id: number, status: string): Promise<void> {
    const known = this.known.get(`${kind}:${id}`);
    if (known?.status === status) known.toldAt = known.at;
  }

  private answer(known: Known): StatusKnown {
    return { status: known.status, told: known.toldAt === known.at };
  }
}

/**
 * The same in table `receiver_known_statuses`: `updated_at` is the time of the change known,
 * `told_at` that of the change last told.
 */
export class PostgresKnownStatuses implements KnownStatuses {
  constructor(private readonly pool: Queryable) {}

  async createTable(): Promise<void> {
    const { rows } = await this.pool.query<{ existed: boolean; has_told_at: boolean }>(
      `SELECT to_regclass('receiver_known_statuses') IS NOT NULL AS existed,
              EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass('receiver_known_statuses') AND attname = 'told_at' AND NOT attisdropped) AS has_told_at`,
    );
    await this.pool.query(`
      CREATE TABLE IF NOT EXISTS receiver_known_statuses (
        kind text NOT NULL,
        id bigint NOT NULL,
        status text NOT NULL,
        updated_at timestamptz NOT NULL,
        told_at timestamptz,
        PRIMARY KEY (kind, id)
      )`);
    if (rows[0]!.existed && !rows[0]!.has_told_at) {
      // A table of an earlier version of this example, which told each change as it stored it.
      await this.pool.query('ALTER TABLE receiver_known_statuses ADD COLUMN told_at timestamptz');
      await this.pool.query('UPDATE receiver_known_statuses SET told_at = updated_at');
    }
  }

  async changed(kind: RecordKind, id: number, status: string, at: string): Promise<StatusKnown> {
    // Written when newer; otherwise the row as it is (not seen by this statement's snapshot only
    // when another writer inserted it meanwhile: asked again).
    const { rows } = await this.pool.query<{ status: string; told: boolean }>(
      `WITH written AS (
         INSERT INTO receiver_known_statuses AS known (kind, id, status, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at
           WHERE known.updated_at < EXCLUDED.updated_at
         RETURNING status, told_at IS NOT DISTINCT FROM updated_at AS told
       )
       SELECT status, told FROM written
       UNION ALL
       SELECT status, told_at IS NOT DISTINCT FROM updated_at FROM receiver_known_statuses
       WHERE kind = $1 AND id = $2 AND NOT EXISTS (SELECT FROM written)`,
      [kind, id, status, at],
    );
    return rows[0] ?? this.changed(kind, id, status, at);
  }

  async observed(kind: RecordKind, id: number, status: string, updatedAt: string): Promise<StatusObserved> {
    // The row as it was (locked, so two writers of one record take turns) and the write, in one statement.
    const { rows } = await this.pool.query<{ previous: string | null; changed: boolean }>(
      `WITH previous AS (
         SELECT status FROM receiver_known_statuses WHERE kind = $1 AND id = $2 FOR UPDATE
       ), written AS (
         INSERT INTO receiver_known_statuses AS known (kind, id, status, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at
           WHERE known.updated_at < EXCLUDED.updated_at AND known.status <> EXCLUDED.status
         RETURNING 1
       )
       SELECT (SELECT status FROM previous) AS previous, EXISTS (SELECT FROM written) AS changed`,
      [kind, id, status, updatedAt],
    );
    const row = rows[0]!;
    return { previous: row.previous ?? undefined, changed: row.changed };
  }

  async markTold(kind: RecordKind, id: number, status: string): Promise<void> {
    await this.pool.query('UPDATE receiver_known_statuses SET told_at = updated_at WHERE kind = $1 AND id = $2 AND status = $3', [kind, id, status]);
  }
}
