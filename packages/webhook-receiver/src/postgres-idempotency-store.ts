import { DEFAULT_LEASE_MS } from './idempotency-store.js';
import type { ClaimResult, IdempotencyStore } from './idempotency-store.js';

/** Anything that runs a parameterised query the way `pg`'s Pool and Client do. */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

export interface PostgresIdempotencyStoreOptions {
  /** A `pg` Pool (or Client) of your own: the store never opens or closes connections. */
  pool: Queryable;
  /** The table, optionally schema-qualified (`receiver.handled_webhooks`). Default: `webhook_deliveries_handled`. */
  tableName?: string;
  /** How long a claim stays in progress before another attempt may take it over. Default: 120000 (2 minutes). */
  leaseMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

/**
 * Handled ids in a PostgreSQL table, shared by every process of the receiver. A claim is one
 * INSERT … ON CONFLICT: of two attempts racing with the same id, exactly one claims it.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private readonly pool: Queryable;
  private readonly table: string;
  readonly leaseMs: number;

  constructor(options: PostgresIdempotencyStoreOptions) {
    const table = options.tableName ?? 'webhook_deliveries_handled';
    // The name goes into SQL text (it cannot be a parameter), so only plain identifiers pass.
    if (!IDENTIFIER.test(table)) throw new TypeError(`tableName must be a lowercase SQL identifier, optionally schema-qualified; got "${table}"`);
    this.pool = options.pool;
    this.table = table;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * Creates the table and its index if they do not exist (or run the same SQL in your own
   * migrations). Run at every start, it also adds the index to a table made by version 0.3.0.
   */
  async createTable(): Promise<void> {
    // Looked up first, on the table the name resolves to: CREATE INDEX locks the table against
    // writes before it finds the index there.
    const { rows } = await this.pool.query<{ present: boolean }>(
      `SELECT EXISTS (SELECT FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass($1) AND c.relname = $2) AS present`,
      [this.table, this.indexName],
    );
    if (rows[0]?.present) return;
    // One text, so one transaction on one connection, under one lock for every store's creation
    // (however its table's name is spelt): receivers starting together would otherwise race, and
    // IF NOT EXISTS does not stop two CREATEs at once (the loser fails on PostgreSQL's catalogue).
    // The index orders deleteOlderThan's rows: without it, each clean-up reads all 35 days of ids.
    await this.pool.query(`
      SELECT pg_advisory_xact_lock(hashtext('@feedback/webhook-receiver createTable'));
      CREATE TABLE IF NOT EXISTS ${this.table} (
        delivery_id text PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('in_progress', 'done')),
        claimed_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      CREATE INDEX IF NOT EXISTS ${this.indexName} ON ${this.table} ((COALESCE(completed_at, claimed_at)));`);
  }

  /** In the table's schema (an index always is); a name too long for PostgreSQL is cut, as it would cut it. */
  private get indexName(): string {
    const suffix = '_last_seen_idx';
    return this.table.split('.').pop()!.slice(0, 63 - suffix.length) + suffix;
  }

  async claim(deliveryId: string): Promise<ClaimResult> {
    // New id: inserted, claimed. Known id in progress past its lease: taken over, claimed.
    // Otherwise nothing is written and the row says which.
    const claimed = await this.pool.query(
      `INSERT INTO ${this.table} AS handled (delivery_id, state, claimed_at) VALUES ($1, 'in_progress', now())
       ON CONFLICT (delivery_id) DO UPDATE SET claimed_at = now()
       WHERE handled.state = 'in_progress' AND handled.claimed_at < now() - make_interval(secs => $2::double precision / 1000)
       RETURNING delivery_id`,
      [deliveryId, this.leaseMs],
    );
    if (claimed.rowCount === 1) return 'claimed';
    // Handled before: arrived again (a redelivery by hand), so it is remembered from now on, as
    // the sender's history keeps it. Otherwise the row says which.
    const { rows } = await this.pool.query<{ state: 'in_progress' | 'done' }>(
      `WITH touched AS (UPDATE ${this.table} SET completed_at = now() WHERE delivery_id = $1 AND state = 'done' RETURNING state)
       SELECT state FROM touched UNION ALL SELECT state FROM ${this.table} WHERE delivery_id = $1 AND NOT EXISTS (SELECT FROM touched)`,
      [deliveryId],
    );
    // Released between the two statements: try again.
    return rows[0]?.state ?? this.claim(deliveryId);
  }

  async complete(deliveryId: string): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET state = 'done', completed_at = now() WHERE delivery_id = $1`, [deliveryId]);
  }

  async release(deliveryId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE delivery_id = $1 AND state = 'in_progress'`, [deliveryId]);
  }

  /**
   * Forgets ids last handled or seen again before `date`: run it now and then with a date 35 days
   * back (`DEFAULT_RETENTION_MS`), since a member can redeliver by hand, with the same id, any
   * delivery the sender's history still holds (30 days after its last attempt). Claims taken
   * before it and never completed go too, once their lease has also ended (a date given too close
   * to now never takes one still running): their handler died, and an id that never came again
   * would otherwise stay for good. Answers how many went.
   */
  async deleteOlderThan(date: Date): Promise<number> {
    // A done id has its completed_at, one in progress only its claimed_at: the index's expression
    // is each row's last time, so the old ones are a range of it.
    const { rowCount } = await this.pool.query(
      `DELETE FROM ${this.table}
       WHERE COALESCE(completed_at, claimed_at) < $1
         AND (state = 'done' OR claimed_at < now() - make_interval(secs => $2::double precision / 1000))`,
      [date, this.leaseMs],
    );
    return rowCount ?? 0;
  }
}
