import type { Response } from 'express';
import type { SqlRunner, Statement } from '../sql/sql-runner.js';
import { isoTime } from '../sql/sql-runner.js';
import { nextCursor } from './list-query.js';
import type { ListRequest } from './list-query.js';

/**
 * A REST list's page read as plain SQL, each item's JSON built by PostgreSQL: the api only joins
 * them. `row_to_json` writes what `JSON.stringify` writes for the same values (compact, the
 * same escapes), so the answer's bytes are those the view in JavaScript would give.
 */

/** A JSON text, sent as it is. */
export type JsonText = string & { readonly json: unique symbol };

/** Sends a JSON text as `response.json` sends a value: the same headers. */
export function sendJson(response: Response, text: JsonText): void {
  if (!response.get('Content-Type')) response.set('Content-Type', 'application/json');
  response.send(text);
}

export interface KeysetStatements {
  newestFirst: Statement;
  newestFirstAfter: Statement;
  updatedSince: Statement;
  updatedSinceAfter: Statement;
}

/**
 * The four statements of a list, one per order, with and without a cursor. `from` names the
 * records as `r` and may join what the item needs; `item` is the item's JSON text. Parameters: the
 * app, the rows to read (a page and one more), then the order's bounds. The conditions are those
 * of `pageQuery`: a plain bound where the index walk starts, and the tie broken by id.
 */
export function keysetStatements(name: string, from: string, item: string): KeysetStatements {
  const select = (time: string) => `SELECT r.id, ${isoTime(`r.${time}`)} AS at, ${item} AS item FROM ${from} WHERE r.app_id = $1::int`;
  const newest = select('created_at');
  const updated = select('updated_at');
  return {
    newestFirst: { name: `${name}-newest`, text: `${newest} ORDER BY r.created_at DESC, r.id DESC LIMIT $2::int` },
    newestFirstAfter: {
      name: `${name}-newest-after`,
      text: `${newest} AND r.created_at <= $3::timestamptz AND (r.created_at < $3::timestamptz OR (r.created_at = $3::timestamptz AND r.id < $4::int)) ORDER BY r.created_at DESC, r.id DESC LIMIT $2::int`,
    },
    updatedSince: { name: `${name}-updated`, text: `${updated} AND r.updated_at >= $3::timestamptz ORDER BY r.updated_at ASC, r.id ASC LIMIT $2::int` },
    updatedSinceAfter: {
      name: `${name}-updated-after`,
      text: `${updated} AND r.updated_at >= $3::timestamptz AND (r.updated_at > $4::timestamptz OR (r.updated_at = $4::timestamptz AND r.id > $5::int)) ORDER BY r.updated_at ASC, r.id ASC LIMIT $2::int`,
    },
  };
}

interface PageRow {
  id: number;
  at: string;
  item: string;
}

/** One page of `appId`'s records as `{"data":[…],"next_cursor":…}`. */
export async function readJsonPage(sql: SqlRunner, statements: KeysetStatements, appId: number, request: ListRequest): Promise<JsonText> {
  const take = request.limit + 1;
  const { order, after } = request;
  let rows: PageRow[];
  if (order.kind === 'newest_first') {
    rows = after
      ? await sql.rows<PageRow>(statements.newestFirstAfter, [appId, take, after.at.toISOString(), after.id])
      : await sql.rows<PageRow>(statements.newestFirst, [appId, take]);
  } else {
    const bound = after && after.at > order.since ? after.at : order.since;
    rows = after
      ? await sql.rows<PageRow>(statements.updatedSinceAfter, [appId, take, bound.toISOString(), after.at.toISOString(), after.id])
      : await sql.rows<PageRow>(statements.updatedSince, [appId, take, bound.toISOString()]);
  }
  const items = rows.slice(0, request.limit);
  const last = items[items.length - 1];
  const cursor = rows.length > request.limit && last !== undefined ? JSON.stringify(nextCursor(request, { at: new Date(last.at), id: last.id })) : 'null';
  return `{"data":[${items.map((row) => row.item).join(',')}],"next_cursor":${cursor}}` as JsonText;
}
