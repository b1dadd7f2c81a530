import { MAX_RECORD_ID, PAGE_LIMIT } from '@feedback/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@feedback/database';
import { redactText } from '@feedback/logging';
import type { Request } from 'express';
import { ApiError } from '../http/api-error.js';

/**
 * The paging of the dashboard's own lists (webhook endpoints, delivery history, a suggestion's
 * comments, a ticket's messages): `cursor`, the previous page's `next_cursor`, and `limit`, 1 to
 * PAGE_LIMIT.max. The REST lists page differently (`list-query.ts`).
 */

/**
 * Refuses a query parameter the list does not take, by name: a client still sending the
 * history's old `before` would otherwise get the first page again and again.
 */
export function refuseUnknownParameters(query: Request['query'], known: readonly string[], hint: string): void {
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown === undefined) return;
  // The name is the client's, a key pasted as one included.
  const name = redactText(unknown);
  throw new ApiError('validation_failed', `Unknown query parameter "${name}": ${hint}.`, { field: `/${name}` });
}

const invalidCursor = () => new ApiError('invalid_cursor', 'The cursor is not one this list gave; start again without it.', { field: '/cursor' });

/** A list's paging as the client sent it: `cursor` and `limit`, each checked, neither required. */
export function pageParameters(query: Request['query']): { cursor?: string; limit?: number } {
  const { cursor, limit } = query;
  if (limit !== undefined && !(typeof limit === 'string' && /^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= PAGE_LIMIT.max)) {
    throw new ApiError('validation_failed', `limit must be a whole number from 1 to ${PAGE_LIMIT.max}.`, { field: '/limit' });
  }
  if (cursor !== undefined && !(typeof cursor === 'string' && cursor.length >= 1 && cursor.length <= 200)) throw invalidCursor();
  return { ...(cursor !== undefined ? { cursor: cursor as string } : {}), ...(limit !== undefined ? { limit: Number(limit) } : {}) };
}

/** A record id a cursor may hold: ids are PostgreSQL `integer`s. */
const isRecordId = (id: unknown): id is number => Number.isInteger(id) && (id as number) >= 0 && (id as number) <= MAX_RECORD_ID;

/** One page of a record's thread (comments, messages), oldest first: where the last page ended, and how many. */
export interface ThreadPage {
  /** What the cursor is valid for: the thread, in its app. */
  tag: string;
  limit: number;
  after?: { at: Date; id: number };
}

/** The page a thread's query asks for: `cursor` and `limit` only, `limit` PAGE_LIMIT.default unless given. */
export function threadPage(query: Request['query'], tag: string): ThreadPage {
  refuseUnknownParameters(query, ['cursor', 'limit'], 'page with cursor and limit');
  const { cursor, limit } = pageParameters(query);
  const page: ThreadPage = { tag, limit: limit ?? PAGE_LIMIT.default };
  if (cursor === undefined) return page;
  const after = decodeKeysetCursor(cursor, tag, isRecordId);
  if (!after) throw invalidCursor();
  return { ...page, after };
}

/**
 * Prisma `where`, `orderBy` and `take` for a thread's page: created later than the cursor's
 * record, or at the same time with a higher id. The plain bound beside the OR is where an index
 * walk can start. One row more than the page tells whether there is a next one.
 */
export function threadPageQuery(page: ThreadPage) {
  const after = page.after;
  return {
    where: after ? { createdAt: { gte: after.at }, OR: [{ createdAt: { gt: after.at } }, { createdAt: after.at, id: { gt: after.id } }] } : {},
    orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }],
    take: page.limit + 1,
  };
}

/** The page's items and the cursor of the next page (null on the last). */
export function toThreadPage<R extends { id: number; createdAt: Date }, V>(page: ThreadPage, rows: R[], view: (row: R) => V) {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(view),
    next_cursor: rows.length > page.limit && last !== undefined ? encodeKeysetCursor(page.tag, last.createdAt, last.id) : null,
  };
}
