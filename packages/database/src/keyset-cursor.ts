/**
 * Keyset paging's cursor: where the previous page ended, as the last row's (time, id). The id
 * breaks ties, so no row is skipped or repeated when many share one time, and a page goes on
 * from that place even if its last row was deleted since.
 *
 * Opaque to clients (base64url of JSON), and tagged with what it is valid for (the list, its
 * owner, its order): a cursor from another list, or one a client made up, is refused, not read.
 * Times are kept to the millisecond, as `Date` and the `timestamptz(3)` columns paged hold them.
 */
export interface KeysetPosition<Id> {
  at: Date;
  id: Id;
}

export function encodeKeysetCursor(tag: string, at: Date, id: string | number): string {
  return Buffer.from(JSON.stringify({ o: tag, t: at.toISOString(), i: id })).toString('base64url');
}

/** Date.toISOString of a year 1 to 9999, the years PostgreSQL and JavaScript both hold. */
const ENCODED_TIME = /^(?!0000)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * The position a cursor holds, or undefined for anything encodeKeysetCursor did not write with
 * this tag and an id `isId` accepts.
 */
export function decodeKeysetCursor<Id extends string | number>(cursor: string, tag: string, isId: (id: unknown) => id is Id): KeysetPosition<Id> | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  // JSON that is not an object (`null`, a number) is no cursor either.
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return undefined;
  const { o, t, i } = decoded as { o?: unknown; t?: unknown; i?: unknown };
  if (o !== tag || typeof t !== 'string' || !ENCODED_TIME.test(t) || !isId(i)) return undefined;
  const at = new Date(t);
  return Number.isNaN(at.getTime()) ? undefined : { at, id: i };
}
