import { MAX_RECORD_ID, defineContract } from '@feedback/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@feedback/database';
import { ApiError } from '../http/api-error.js';
import { parseInstant } from '../http/parse-instant.js';

/** Query parameters of both GET list endpoints; anything else is refused by name. */
export const listQueryContract = defineContract('list-query', {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: 'Items per page, 1 to 100. Default: 25.' },
    cursor: { type: 'string', maxLength: 200, description: 'The `next_cursor` of the previous page.' },
    updated_since: {
      type: 'string',
      format: 'date-time',
      description: 'ISO 8601 instant with a time zone. Only items updated at or after it, oldest update first.',
    },
  },
} as const);

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/**
 * Keyset pagination. In the default order (newest first) the cursor is the last item's
 * (created_at, id); with `updated_since` (oldest update first) it is (updated_at, id). The id
 * breaks ties, so no item is skipped or repeated when many share one timestamp. The cursor
 * (`encodeKeysetCursor`) is only valid with the query that produced it, on the same list of the
 * same app.
 */
export type ListOrder = { kind: 'newest_first' } | { kind: 'updated_since'; since: Date };

/** Which list a cursor belongs to: its records and its app. */
export interface ListScope {
  records: 'suggestions' | 'tickets';
  appId: number;
}

export interface ListRequest {
  scope: ListScope;
  order: ListOrder;
  limit: number;
  after?: { at: Date; id: number };
}

export function parseListQuery(query: unknown, scope: ListScope): ListRequest {
  const parsed = listQueryContract.parse(query);
  const limit = parsed.limit === undefined ? DEFAULT_LIMIT : Number(parsed.limit);
  if (limit < 1 || limit > MAX_LIMIT) {
    throw new ApiError('validation_failed', `limit must be between 1 and ${MAX_LIMIT}.`, { field: '/limit' });
  }
  const order: ListOrder = parsed.updated_since ? { kind: 'updated_since', since: parseInstant(parsed.updated_since, 'updated_since') } : { kind: 'newest_first' };
  const request: ListRequest = { scope, order, limit };
  if (parsed.cursor !== undefined) request.after = decodeCursor(parsed.cursor, scope, order);
  return request;
}

/** What a cursor is valid for: the list, the app and the order (with its `updated_since`). */
function cursorTag(scope: ListScope, order: ListOrder): string {
  return `${scope.records}:${scope.appId}:${order.kind === 'newest_first' ? 'n' : `u${order.since.toISOString()}`}`;
}

/** A record id a cursor may hold: ids are PostgreSQL `integer`s. */
const isRecordId = (id: unknown): id is number => Number.isInteger(id) && (id as number) >= 0 && (id as number) <= MAX_RECORD_ID;

function decodeCursor(cursor: string, scope: ListScope, order: ListOrder): { at: Date; id: number } {
  const position = decodeKeysetCursor(cursor, cursorTag(scope, order), isRecordId);
  if (!position) throw new ApiError('invalid_cursor', 'The cursor is not one this list gave, or belongs to another query. Start again without it.', { field: '/cursor' });
  return position;
}

/**
 * Prisma `where` and `orderBy` for one page of records with createdAt, updatedAt and id. The
 * position after the cursor is "earlier, or as early with a lower id": PostgreSQL cannot walk an
 * index from such an OR, so each page would read every row before it, as OFFSET does. The plain
 * bound beside it (as early or earlier) is where the index walk starts.
 */
export function pageQuery(request: ListRequest) {
  if (request.order.kind === 'newest_first') {
    const after = request.after;
    return {
      where: after ? { createdAt: { lte: after.at }, OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {},
      orderBy: [{ createdAt: 'desc' as const }, { id: 'desc' as const }],
      take: request.limit + 1,
    };
  }
  const after = request.after;
  return {
    where: {
      updatedAt: { gte: after && after.at > request.order.since ? after.at : request.order.since },
      ...(after ? { OR: [{ updatedAt: { gt: after.at } }, { updatedAt: after.at, id: { gt: after.id } }] } : {}),
    },
    orderBy: [{ updatedAt: 'asc' as const }, { id: 'asc' as const }],
    take: request.limit + 1,
  };
}

/** The cursor of the page after the one that ended at `last` (its ordering time and id). */
export function nextCursor(request: ListRequest, last: { at: Date; id: number }): string {
  return encodeKeysetCursor(cursorTag(request.scope, request.order), last.at, last.id);
}

/** The page and the cursor of the next one (null on the last page). */
export function toPage<R extends { id: number; createdAt: Date; updatedAt: Date }, V>(request: ListRequest, rows: R[], view: (row: R) => V) {
  const items = rows.slice(0, request.limit);
  const last = items[items.length - 1];
  const more = rows.length > request.limit && last !== undefined;
  return {
    data: items.map(view),
    next_cursor: more ? nextCursor(request, { at: request.order.kind === 'newest_first' ? last.createdAt : last.updatedAt, id: last.id }) : null,
  };
}
