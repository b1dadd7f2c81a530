import type DataLoader from 'dataloader';
import type pg from 'pg';
import { ERASED_PAYLOAD_JSON, isErasedPayloadSql } from './erased-payload.js';
import type { ErasureHashKey } from './erased-users.js';
import { ATTEMPT_TARGET_COLUMNS, DELIVERY_NOW_COLUMNS, attemptTargetOf, automaticAttemptDueSql, deliveryNowOf } from './attempt-target.js';
import type { AttemptTarget, DeliveryNow } from './attempt-target.js';
import { statementBatches } from '@feedback/database';

/** One attempt made, and the delivery's state after it. */
export interface AttemptOutcome {
  deliveryId: string;
  number: number;
  startedAt: Date;
  durationMs: number;
  responseCode: number | null;
  error: string | null;
  responseBodyStart: string | null;
  status: 'delivered' | 'retrying' | 'abandoned';
  /** A redelivery by hand, which may find its delivery settled. */
  manual: boolean;
  /** What was sent: the URL, and every request header (the signature included). */
  requestUrl?: string | null;
  requestHeaders?: Record<string, string> | null;
}

/** An outcome that took effect, as endpoint health counts it. */
export interface RecordedOutcome {
  endpointId: string;
  delivered: boolean;
  startedAt: Date;
}

export interface AttemptStoreOptions {
  /** The key erasures name users with (ERASURE_HASH_KEY): an attempt for an erased user is withheld. */
  erasureHashKey: ErasureHashKey;
  /** Most rows one statement carries. Default: 500. */
  maxBatchSize?: number;
  /**
   * How long an outcome waits for others to share its statement. Recording is off the path a
   * delivery waits on, so one event's attempts, finishing a millisecond or two apart, share one
   * transaction at no cost in latency (docs/decisions.md, "Attempt records are gathered"). Default: 0.
   */
  recordGatherMs?: number;
  /** Told of the outcomes each statement recorded (endpoint health). Default: nobody. */
  onRecorded?: (outcomes: RecordedOutcome[]) => void;
}

/**
 * The deliveries a key lookup reads, from a JSON array of ids. An array parameter would do, but
 * PostgreSQL then plans the statement again at every run: its estimate for an array of unknown
 * length loses to each short one's. A JSON document's row estimate does not depend on its value,
 * so one generic plan serves every run (docs/decisions.md).
 */
const BY_IDS_SQL = 'd.id IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))';

const LOAD_SQL = `
  SELECT ${ATTEMPT_TARGET_COLUMNS}
  FROM webhooks.deliveries d
  JOIN webhooks.webhook_endpoints e ON e.id = d.endpoint_id
  WHERE ${BY_IDS_SQL}`;

// The attempt log and the delivery's state move together, in one statement, and it answers which
// outcomes took effect: only those are followed by what comes next (see AttemptMaker.make for the
// one exception). The update drives it, and moves a delivery only forward:
// - the next attempt of a delivery still under way is recorded: a first attempt, a retry, or a
//   redelivery by hand, which may find the delivery delivered or abandoned (it is queued before
//   the delivery shows pending); an automatic attempt that finds a redelivery by hand pending
//   (pending after attempts) is a stale retry, and is not;
// - a 2xx outweighs a failure recorded for the same attempt, the latest: two copies of one attempt
//   (a message the broker gave twice) may finish in either order, and the receiver has the event;
//   not one recorded for a later attempt (a redelivery by hand since: the history would show a
//   failed attempt after the delivery), nor on a delivery an erasure emptied since (the receiver's
//   answer is not kept);
//   two outcomes of one delivery in one statement are one, chosen among those it may record (the
//   2xx first): an UPDATE joined to two rows applies either;
// - anything else (a duplicate, an attempt after the delivery settled, a withheld delivery, one
//   deleted meanwhile with its endpoint) changes nothing and logs nothing, rather than failing on
//   a foreign key and having the whole message handled again.
const RECORDABLE = `d.status <> 'withheld' AND (
      (d.attempts < o.number AND o.manual) OR (${automaticAttemptDueSql('d', 'o.number')})
      OR (o.status = 'delivered' AND d.status IN ('retrying', 'abandoned', 'cancelled') AND o.number = d.attempts AND NOT ${isErasedPayloadSql('d.payload')})
    )`;
export const RECORD_SQL = `
  WITH given AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(delivery_id uuid, number int, started_at timestamptz, duration_ms int, response_code int,
      error text, response_body_start text, status text, manual bool, request_url text, request_headers jsonb, position int)
  ), outcome AS (
    SELECT DISTINCT ON (o.delivery_id) o.*
    FROM given o JOIN webhooks.deliveries d ON d.id = o.delivery_id
    WHERE ${RECORDABLE}
    ORDER BY o.delivery_id, o.status = 'delivered' DESC, o.number DESC
  ), updated AS (
    -- Checked again on the row as it is when locked: another statement may have recorded meanwhile.
    UPDATE webhooks.deliveries d
    SET status = o.status::webhooks."DeliveryStatus", attempts = greatest(d.attempts, o.number), last_response_code = o.response_code, updated_at = now()
    FROM outcome o
    WHERE d.id = o.delivery_id AND ${RECORDABLE}
    RETURNING o.*, d.endpoint_id
  ), logged AS (
    INSERT INTO webhooks.delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_code, error, response_body_start, request_url, request_headers)
    SELECT gen_random_uuid(), delivery_id, number, started_at, duration_ms, response_code, error, response_body_start, request_url, request_headers FROM updated
    ON CONFLICT (delivery_id, number) DO UPDATE SET started_at = excluded.started_at, duration_ms = excluded.duration_ms,
      response_code = excluded.response_code, error = excluded.error, response_body_start = excluded.response_body_start,
      request_url = excluded.request_url, request_headers = excluded.request_headers
  )
  SELECT position, endpoint_id, status = 'delivered' AS delivered, started_at FROM updated`;

/** A UTF-16 surrogate without its pair: JSON carries it, and PostgreSQL's jsonb refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text from a receiver (the start of its answer, an error naming its certificate) as PostgreSQL
 * can store it: text cannot hold a NUL character, nor jsonb a lone surrogate. Either would fail
 * the whole statement, every attempt recorded with it, and the message again each time it came back.
 */
function storableText(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\0', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The delivery hot path's reads and writes, in plain SQL over the worker's pool. Attempts running
 * at the same moment share statements (statementBatches): their loads are one SELECT, and their
 * outcomes one INSERT-and-UPDATE, so the database sees a few statements per batch instead of
 * several round trips per attempt.
 */
export class AttemptStore {
  private readonly loader: DataLoader<string, AttemptTarget | undefined>;
  private readonly recorder: DataLoader<AttemptOutcome, boolean>;
  private readonly nowLoader: DataLoader<string, DeliveryNow | undefined>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: AttemptStoreOptions,
  ) {
    const batching = { maxBatchSize: options.maxBatchSize ?? 500 };
    this.loader = statementBatches((ids: readonly string[]) => this.loadMany(ids), batching);
    this.recorder = statementBatches((outcomes: readonly AttemptOutcome[]) => this.recordMany(outcomes), { ...batching, gatherMs: options.recordGatherMs ?? 0 });
    this.nowLoader = statementBatches((ids: readonly string[]) => this.nowMany(ids), batching);
  }

  /**
   * The delivery's status and attempt count, whether it names an erased user, and its endpoint's
   * URL and secret as they are now; undefined when gone (its endpoint was deleted). Key lookups, no
   * payload sent back: what an attempt that waited for its slot reads again.
   */
  now(deliveryId: string): Promise<DeliveryNow | undefined> {
    return this.nowLoader.load(deliveryId);
  }

  /** The delivery and its endpoint; undefined when gone (its endpoint was deleted). */
  load(deliveryId: string): Promise<AttemptTarget | undefined> {
    return this.loader.load(deliveryId);
  }

  /**
   * Resolves once the attempt and the delivery's new state are committed: true, or false when the
   * outcome changed nothing (see RECORD_SQL), in which case nothing may follow it.
   */
  record(outcome: AttemptOutcome): Promise<boolean> {
    return this.recorder.load(outcome);
  }

  /**
   * Holds a delivery whose endpoint is paused, while automatic attempt `number` is the one due:
   * it is recorded, not sent, and a Recover sends it once the endpoint resumes. True if this held it.
   */
  async hold(deliveryId: string, number: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhooks.deliveries d SET status = 'held', updated_at = now()
       WHERE d.id = $1 AND ${automaticAttemptDueSql('d', '$2')}`,
      [deliveryId, number],
    );
    return rowCount === 1;
  }

  /** Stops a delivery whose endpoint no longer selects its event; its history stays. True if this stopped it. */
  async cancel(deliveryId: string, number: number): Promise<boolean> {
    // Only while automatic attempt `number` is the one due: a delivery made pending again by a
    // redelivery by hand meanwhile is the member's, and goes.
    const { rowCount } = await this.pool.query(
      `UPDATE webhooks.deliveries d SET status = 'cancelled', updated_at = now()
       WHERE d.id = $1 AND ${automaticAttemptDueSql('d', '$2')}`,
      [deliveryId, number],
    );
    return rowCount === 1;
  }

  /**
   * Whether the redelivery by hand that queued attempt `number` committed. Its transaction holds
   * the delivery's row until it ends (see `redeliver`), and its message may arrive before that, or
   * after a rollback (a confirm that came too late): this waits for the row, then finds the
   * delivery pending at the attempt before, as that transaction left it.
   */
  async redeliveryCommitted(deliveryId: string, number: number): Promise<boolean> {
    const { rows } = await this.pool.query<{ status: string; attempts: number }>(
      'SELECT status::text AS status, attempts FROM webhooks.deliveries WHERE id = $1 FOR SHARE',
      [deliveryId],
    );
    const row = rows[0];
    return row !== undefined && row.status === 'pending' && row.attempts === number - 1;
  }

  /** Stops a delivery that names an erased user, and drops its stored payload. True if this stopped it. */
  async withhold(deliveryId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhooks.deliveries SET status = 'withheld', payload = $2::jsonb, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'retrying')`,
      [deliveryId, ERASED_PAYLOAD_JSON],
    );
    return rowCount === 1;
  }

  private async loadMany(ids: readonly string[]): Promise<Array<AttemptTarget | undefined>> {
    const { rows } = await this.pool.query({ name: 'load-attempt-targets', text: LOAD_SQL, values: [JSON.stringify(ids), this.options.erasureHashKey.pads] });
    const byId = new Map<string, AttemptTarget>(rows.map((row) => [row.id, attemptTargetOf(row)]));
    return ids.map((id) => byId.get(id));
  }

  private async nowMany(ids: readonly string[]): Promise<Array<DeliveryNow | undefined>> {
    const { rows } = await this.pool.query<Record<string, unknown> & { id: string }>({
      name: 'deliveries-now',
      text: `SELECT d.id, ${DELIVERY_NOW_COLUMNS}
             FROM webhooks.deliveries d JOIN webhooks.webhook_endpoints e ON e.id = d.endpoint_id
             WHERE ${BY_IDS_SQL}`,
      values: [JSON.stringify(ids), this.options.erasureHashKey.pads],
    });
    const byId = new Map(rows.map((row) => [row.id, deliveryNowOf(row)]));
    return ids.map((id) => byId.get(id));
  }

  private async recordMany(outcomes: readonly AttemptOutcome[]): Promise<boolean[]> {
    // One JSON document rather than a text array per column: JSON.stringify is native, and pg
    // escapes every element of an array parameter in JavaScript.
    const given = outcomes.map((outcome, index) => ({
      delivery_id: outcome.deliveryId,
      number: outcome.number,
      started_at: outcome.startedAt,
      duration_ms: outcome.durationMs,
      response_code: outcome.responseCode,
      error: storableText(outcome.error),
      response_body_start: storableText(outcome.responseBodyStart),
      status: outcome.status,
      manual: outcome.manual,
      request_url: outcome.requestUrl ?? null,
      request_headers: outcome.requestHeaders ?? null,
      position: index + 1,
    }));
    const { rows } = await this.pool.query<{ position: number; endpoint_id: string; delivered: boolean; started_at: Date }>({
      name: 'record-attempts',
      text: RECORD_SQL,
      values: [JSON.stringify(given)],
    });
    this.options.onRecorded?.(rows.map((row) => ({ endpointId: row.endpoint_id, delivered: row.delivered, startedAt: row.started_at })));
    const tookEffect = new Set(rows.map((row) => Number(row.position)));
    return outcomes.map((_, index) => tookEffect.has(index + 1));
  }
}
