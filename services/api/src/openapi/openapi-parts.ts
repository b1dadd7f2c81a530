import type { Contract } from '@feedback/contracts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../pagination/list-query.js';

/** The small pieces every route's OpenAPI operation is written with. */
export type Schema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
export const errorResponse = (description: string, schema: unknown = ref('Error')) => ({ description, content: json(schema) });

/** An error response that also carries response headers, each a string. */
export const errorResponseWithHeaders = (description: string, headers: Record<string, string>) => ({
  ...errorResponse(description),
  headers: Object.fromEntries(Object.entries(headers).map(([name, about]) => [name, { description: about, schema: { type: 'string' } }])),
});

/** A REST list's page of `item`, a component schema. */
export const pageOf = (item: string) => ({
  type: 'object',
  required: ['data', 'next_cursor'],
  additionalProperties: false,
  properties: {
    data: { type: 'array', items: ref(item) },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
  },
});

/**
 * Query parameters from a query contract's properties. The contract sees every query value as the
 * string it arrives as; `typed` gives the type clients should send instead (a number for `limit`).
 */
export function queryParameters(contract: Contract<unknown>, typed: Record<string, Schema> = {}): Schema[] {
  const properties = (contract.schema as { properties: Record<string, Schema> }).properties;
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    description: schema['description'],
    schema: typed[name] ?? { ...schema, description: undefined },
  }));
}

export const pathParameter = (name: string, schema: Schema, description: string) => ({ name, in: 'path', required: true, description, schema });
export const idParameter = (name: string) => pathParameter(name, { type: 'integer' }, 'Numeric id.');
export const uuidParameter = (name: string, description: string) => pathParameter(name, { type: 'string', format: 'uuid' }, description);

/** A required JSON request body of `schema`. */
export const requestBody = (schema: unknown) => ({ requestBody: { required: true, content: json(schema) } });

/** An RPC request's schema as a body: path and session fields are not in the body. */
export function bodySchema(request: Schema, omit: string[]): Schema {
  const properties = { ...(request['properties'] as Record<string, unknown>) };
  for (const field of omit) delete properties[field];
  const required = ((request['required'] as string[] | undefined) ?? []).filter((field) => !omit.includes(field));
  return { ...request, properties, required };
}

/** How clients send the REST lists' `limit`: the number it is, not the string the query holds. */
export const listQueryTypes = { limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } };
