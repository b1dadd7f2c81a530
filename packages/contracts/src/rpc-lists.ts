/** Lists and pages in RPC results, and the request fields that ask for a page. */
export function listOf<const S>(item: S) {
  return {
    type: 'object',
    required: ['items'],
    additionalProperties: false,
    properties: { items: { type: 'array', items: item } },
  } as const;
}

/** One page of a list that pages: `next_cursor` asks for the next one, null on the last. */
export function pageOf<const S>(item: S) {
  return {
    type: 'object',
    required: ['items', 'next_cursor'],
    additionalProperties: false,
    properties: { items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
  } as const;
}

/** Items on a page of the dashboard's lists that page (endpoints, delivery history): unless asked otherwise, and at most. */
export const PAGE_LIMIT = { default: 50, max: 100 } as const;

/** A page's request: where the previous one ended, and how many items at most. */
export const pageRequestFields = {
  cursor: { type: 'string', minLength: 1, maxLength: 200 },
  limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max },
} as const;
