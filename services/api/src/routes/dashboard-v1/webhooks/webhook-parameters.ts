import type { Request } from 'express';
import { DELIVERY_STATUSES, EVENT_NAMES, PAGE_LIMIT, isUuid } from '@feedback/contracts';
import { redactText } from '@feedback/logging';
import { ApiError } from '../../../http/api-error.js';
import { idParameter, uuidParameter } from '../../../openapi/openapi-parts.js';
import { pageParameters, refuseUnknownParameters } from '../../../pagination/page-parameters.js';

/** The webhook routes' path and query parameters: read from a request, and described. */

/**
 * An endpoint or delivery id from the path. One that is not a UUID names nothing: 404, as for an
 * id no endpoint has, rather than an error about a body the request may not even have.
 */
export function pathId(request: Request, param: 'endpointId' | 'deliveryId' | 'recoveryId'): string {
  const raw = String(request.params[param]);
  if (isUuid(raw)) return raw.toLowerCase();
  const what = { endpointId: 'webhook endpoint for this app', deliveryId: 'delivery for this endpoint', recoveryId: 'recovery for this endpoint' }[param];
  throw new ApiError('not_found', `No such ${what}.`);
}

/**
 * A filter of the delivery history: one value or several, separated by commas or given as the
 * parameter again (`status=abandoned,retrying`, `status=abandoned&status=retrying`).
 */
function filterValues<T extends string>(name: string, raw: unknown, allowed: readonly T[]): T[] | undefined {
  if (raw === undefined) return undefined;
  const values = [...new Set((Array.isArray(raw) ? raw : [raw]).flatMap((value) => String(value).split(',')).map((value) => value.trim()))];
  const unknown = values.find((value) => !(allowed as readonly string[]).includes(value));
  if (unknown !== undefined) {
    // The value is the client's, a key pasted as one included.
    throw new ApiError('validation_failed', `${name} "${redactText(unknown)}" is not one of: ${allowed.join(', ')}.`, { field: `/${name}` });
  }
  return values as T[];
}

/** The endpoint list's query: paging only, with the limit always sent (see the worker's `list`). */
export function endpointListQuery(query: Request['query']) {
  refuseUnknownParameters(query, ['cursor', 'limit'], 'page with cursor and limit');
  const page = pageParameters(query);
  return { ...page, limit: page.limit ?? PAGE_LIMIT.default };
}

/** The delivery history's query: paging (`cursor`, `limit`) and filters (`status`, `event`). */
export function historyQuery(query: Request['query']) {
  refuseUnknownParameters(query, ['cursor', 'limit', 'status', 'event'], 'page with cursor and limit, filter with status and event');
  const page = pageParameters(query);
  const status = filterValues('status', query['status'], DELIVERY_STATUSES);
  const event = filterValues('event', query['event'], EVENT_NAMES);
  return { ...page, ...(status ? { status } : {}), ...(event ? { event } : {}) };
}

export const appParameter = idParameter('appId');
export const endpointParameter = uuidParameter('endpointId', 'Endpoint id.');
export const deliveryParameter = uuidParameter('deliveryId', 'Delivery id (the envelope id).');
export const recoveryParameter = uuidParameter('recoveryId', 'Recovery id.');
/** The paging of the endpoint list and of the delivery history. */
export const cursorParameter = { name: 'cursor', in: 'query', required: false, description: "The previous page's `next_cursor`.", schema: { type: 'string' } };
export const limitParameter = (description: string) => ({
  name: 'limit',
  in: 'query',
  required: false,
  description,
  schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default },
});
/** A query parameter that takes one of `values`, or several separated by commas. */
export const listParameter = (name: string, description: string, values: readonly string[]) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'array', items: { enum: values }, minItems: 1 },
  style: 'form',
  explode: false,
});
