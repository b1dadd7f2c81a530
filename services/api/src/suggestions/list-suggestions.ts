import { keysetStatements, readJsonPage } from '../pagination/json-page.js';
import type { JsonText } from '../pagination/json-page.js';
import type { ListRequest } from '../pagination/list-query.js';
import { isoTime } from '../sql/sql-runner.js';
import type { SqlRunner } from '../sql/sql-runner.js';

/**
 * A suggestion as `suggestionView` shows it, the same fields in the same order, as JSON built by
 * PostgreSQL. The lists are the API's busiest reads.
 */
const SUGGESTION_ITEM_FROM = `api.suggestions r CROSS JOIN LATERAL (
  SELECT r.id, r.title, r.body, r.status,
         (SELECT author FROM (SELECT r.author_external_id AS external_id, r.author_name AS name) author) AS author,
         r.comment_count, ${isoTime('r.created_at')} AS created_at, ${isoTime('r.updated_at')} AS updated_at
) view`;

const statements = keysetStatements('list-suggestions', SUGGESTION_ITEM_FROM, 'row_to_json(view)::text');

export async function listSuggestions(sql: SqlRunner, appId: number, request: ListRequest): Promise<JsonText> {
  return readJsonPage(sql, statements, appId, request);
}
