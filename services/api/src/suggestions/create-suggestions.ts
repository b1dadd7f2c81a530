import { isDatabaseUnavailable, isTransactionConflict, postgresErrorCode, statementBatches } from '@feedback/database';
import type { StatementBatches } from '@feedback/database';
import { isoTime } from '../sql/sql-runner.js';
import type { SqlRunner, Statement } from '../sql/sql-runner.js';

/** One suggestion to create, with its event as built and checked (`payload`, JSON text). */
export interface SuggestionRow {
  appId: number;
  title: string;
  body: string | null;
  authorExternalId: string;
  authorName: string | null;
  eventId: string;
  payload: string;
}

/** What PostgreSQL gave the row: its id and times, as `Date.toISOString` writes them. */
export interface CreatedSuggestion {
  id: number;
  created_at: string;
  updated_at: string;
}

/**
 * Suggestions and their events in one statement, so in one transaction even on its own: each row
 * and its event commit together. PostgreSQL writes each row's id and times into its event, where
 * the event had placeholders of the same types. A suggestion is created with its status and
 * comment count given, so only those three differ. Ids are taken first, in the rows' order, so
 * that each event finds its suggestion by id.
 */
const CREATE_SUGGESTIONS: Statement = {
  name: 'create-suggestions',
  text: `WITH input AS (
    SELECT nextval('api.suggestions_id_seq')::int AS id, i.*
    FROM jsonb_to_recordset($1::jsonb)
      AS i(n int, app_id int, title text, body text, author_external_id text, author_name text, event_id uuid, payload jsonb)
  ), suggestion AS (
    INSERT INTO api.suggestions (id, app_id, title, body, status, author_external_id, author_name, comment_count)
    SELECT id, app_id, title, body, 'open', author_external_id, author_name, 0 FROM input ORDER BY n
    RETURNING id, ${isoTime('created_at')} AS created_at, ${isoTime('updated_at')} AS updated_at
  ), event AS (
    INSERT INTO api.outbox_events (event_id, event_type, payload)
    SELECT i.event_id, 'suggestion.created',
           jsonb_set(i.payload || jsonb_build_object('created_at', s.created_at), '{data,suggestion}',
                     (i.payload #> '{data,suggestion}') || jsonb_build_object('id', s.id, 'created_at', s.created_at, 'updated_at', s.updated_at))
    FROM input i JOIN suggestion s ON s.id = i.id ORDER BY i.n
  )
  SELECT i.n, s.id, s.created_at, s.updated_at FROM input i JOIN suggestion s ON s.id = i.id`,
};

/**
 * The rows as one JSON document, numbered, each event as the JSON text it already is: one
 * parameter, where arrays of text would have pg escape every payload's quotes.
 */
function rowsDocument(rows: readonly SuggestionRow[]): string {
  const items = rows.map(
    (row, index) =>
      `{"n":${index + 1},"app_id":${row.appId},"title":${JSON.stringify(row.title)},"body":${JSON.stringify(row.body)},"author_external_id":${JSON.stringify(row.authorExternalId)},"author_name":${JSON.stringify(row.authorName)},"event_id":${JSON.stringify(row.eventId)},"payload":${row.payload}}`,
  );
  return `[${items.join(',')}]`;
}

/**
 * A failure of the database rather than of a create's data: lost or unreachable, a conflict, a
 * statement cancelled or out of time (57014), or out of resources (class 53). Trying the creates
 * again one by one would only add load, or wait for each in turn.
 */
function isDatabaseFailure(error: unknown): boolean {
  const code = postgresErrorCode(error) ?? '';
  return isDatabaseUnavailable(error) || isTransactionConflict(error) || code === '57014' || code.startsWith('53');
}

async function createRows(sql: SqlRunner, rows: readonly SuggestionRow[]): Promise<CreatedSuggestion[]> {
  const created = await sql.rows<CreatedSuggestion & { n: number }>(CREATE_SUGGESTIONS, [rowsDocument(rows)]);
  const byPosition = new Map(created.map(({ n, ...row }) => [n, row]));
  return rows.map((_row, index) => byPosition.get(index + 1)!);
}

/**
 * Each create as a statement of its own, one after the other in the order they came: of two that
 * clash, the first wins. Once the database itself fails one (gone, overloaded, out of time), the
 * rest get that error at once rather than wait for it one by one.
 */
async function createEachAlone(sql: SqlRunner, rows: readonly SuggestionRow[]): Promise<Array<CreatedSuggestion | Error>> {
  const results: Array<CreatedSuggestion | Error> = [];
  for (const [n, row] of rows.entries()) {
    try {
      results.push((await createRows(sql, [row]))[0]!);
    } catch (error) {
      if (isDatabaseFailure(error)) return [...results, ...rows.slice(n).map(() => error as Error)];
      results.push(error as Error);
    }
  }
  return results;
}

/**
 * Creates on the pool, each its own transaction, gathered the way PostgreSQL gathers commits:
 * while few such statements run, a create goes at the next turn of the event loop with those of
 * the same turn; while they all run, creates wait and go together as one statement. Under load
 * an api instance then commits many suggestions per round trip. A statement that one create's
 * data made fail is tried again for each create alone, so that create fails only itself. One
 * that met a lost connection fails every create with that error, which they answer with 503.
 */
const gathered = new WeakMap<SqlRunner, StatementBatches<SuggestionRow, CreatedSuggestion>>();

function gatheredOn(sql: SqlRunner): StatementBatches<SuggestionRow, CreatedSuggestion> {
  let batches = gathered.get(sql);
  if (!batches) {
    batches = statementBatches<SuggestionRow, CreatedSuggestion>(
      async (rows) => {
        if (rows.length === 1) return createRows(sql, rows);
        try {
          return await createRows(sql, rows);
        } catch (error) {
          // The database lost, or a conflict: the statement may even have committed, its answer
          // lost with the connection. Every create is told to retry (503), as a create alone would be.
          if (isDatabaseFailure(error)) throw error;
          return createEachAlone(sql, rows);
        }
      },
      { concurrency: 4, maxBatchSize: 100 },
    );
    gathered.set(sql, batches);
  }
  return batches;
}

/** Creates one suggestion with its event: gathered with others' on the pool, alone inside a caller's transaction. */
export async function createSuggestionRow(sql: SqlRunner, row: SuggestionRow): Promise<CreatedSuggestion> {
  if (sql.gathers) return gatheredOn(sql).load(row);
  const [created] = await createRows(sql, [row]);
  return created!;
}
