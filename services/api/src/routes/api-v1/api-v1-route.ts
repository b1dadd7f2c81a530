import type { RequestHandler } from 'express';
import type { Contract, Scope } from '@feedback/contracts';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { errorResponse, errorResponseWithHeaders, json, queryParameters, ref, requestBody } from '../../openapi/openapi-parts.js';
import type { Schema } from '../../openapi/openapi-parts.js';
import type { RouteContext } from '../route-context.js';
import { readBody } from '../route-definition.js';
import type { BodyHandler, HttpMethod, RouteDefinition } from '../route-definition.js';

/** An /api/v1 route: what its file defines. */
interface ApiV1RouteSpec {
  method: HttpMethod;
  /** Below /api/v1. */
  path: string;
  /** The key must hold it (or Full access): 403 `insufficient_scope` otherwise. */
  scope: Scope;
  operationId: string;
  summary: string;
  /** Default: none; the required scope is always added. */
  description?: string;
  tags: string;
  /** Path and header parameters. Default: none. */
  parameters?: Schema[];
  /** The query's contract, which the handler reads the query with. Default: the route takes no query. */
  query?: Contract<unknown>;
  /** The type clients send a query parameter as, where the contract's string is not it. Default: none. */
  queryTypes?: Record<string, Schema>;
  /** The success answers; the error answers every route shares are added. */
  responses: Record<string, unknown>;
}

const commonErrors = {
  '401': errorResponseWithHeaders('`missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate.', {
    'WWW-Authenticate': 'Bearer, with the reason.',
  }),
  '404': errorResponse('`not_found`: no such record in this app, or no such route.'),
  '405': errorResponseWithHeaders('`method_not_allowed`.', { Allow: 'The methods this path takes.' }),
  '413': errorResponse('`payload_too_large`: bodies are at most 256 KiB.'),
  '415': errorResponse('`unsupported_media_type`: send the body as application/json.'),
  '429': errorResponseWithHeaders('`rate_limited`: too many failed authentications from this address (IPv6: its /64).', { 'Retry-After': 'Seconds to wait before trying again.' }),
  '500': errorResponse('`internal_error`: ours; retry later, quoting X-Request-Id to support.'),
  '503': errorResponseWithHeaders('`service_unavailable`.', { 'Retry-After': 'Seconds to wait before retrying.' }),
};

function restOperation(spec: ApiV1RouteSpec, body: Contract<unknown> | undefined) {
  const parameters = [...(spec.parameters ?? []), ...(spec.query ? queryParameters(spec.query, spec.queryTypes) : [])];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${spec.description ?? ''}\n\nRequires the scope \`${spec.scope}\`.`.trim(),
    tags: [spec.tags],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? requestBody(body.schema) : {}),
    security: [{ secretKey: [] }],
    'x-required-scope': spec.scope,
    responses: {
      ...spec.responses,
      '400': errorResponse('`validation_failed` (with `field`), `malformed_json` or `invalid_cursor`.'),
      ...commonErrors,
      // `error` tells which: insufficient_scope carries the fields of specification section 7.
      '403': errorResponse('`insufficient_scope` (with the fields below) or `plan_upgrade_required`.', {
        anyOf: [ref('InsufficientScopeError'), ref('Error')],
      }),
    },
  };
}

/**
 * An /api/v1 route. Its steps: the scope check, then the body read (so a key without the scope
 * gets its 403 whatever it sent), then, with a `body` contract, the body checked, then the handler.
 */
export function apiV1Route<B>(spec: ApiV1RouteSpec & { body: Contract<B>; handler: (context: RouteContext) => BodyHandler<B> }): RouteDefinition<RouteContext>;
export function apiV1Route(spec: ApiV1RouteSpec & { handler: (context: RouteContext) => RequestHandler }): RouteDefinition<RouteContext>;
export function apiV1Route(
  spec: ApiV1RouteSpec & { body?: Contract<unknown>; handler: (context: RouteContext) => RequestHandler | BodyHandler<unknown> },
): RouteDefinition<RouteContext> {
  const { body } = spec;
  return {
    method: spec.method,
    path: spec.path,
    operation: restOperation(spec, body),
    contracts: [body, spec.query].filter((contract) => contract !== undefined),
    handlers: (context) => {
      const handler = spec.handler(context);
      return [requireScope(spec.scope, context.links), ...readJsonBody, body ? readBody(body, handler as BodyHandler<unknown>) : (handler as RequestHandler)];
    },
  };
}

/** Creates honour Idempotency-Key. */
export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Retrying with the same key returns the first answer (with `Idempotent-Replayed: true`) and creates nothing twice. Another request with the same key gets 422 `idempotency_key_reused`. A key is kept for at least 24 hours; after that the same key is a new request.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', description: '1 to 255 visible ASCII characters (no spaces).' },
};

/** The answers of an idempotent create of a `schema` record. */
export const created = (schema: string) => ({
  '201': {
    description: 'Created.',
    headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } },
    content: json(ref(schema)),
  },
  '409': errorResponse('`idempotency_in_progress`.'),
  '410': errorResponse('`user_erased`: a retry whose earlier answer named a user since erased; it is not run again.'),
  '422': errorResponse('`idempotency_key_reused`.'),
});

/** What both lists say about their order. */
export const listDescription =
  'Newest first by default. With `updated_since`, only items updated at or after that instant, oldest update first: sweep every page to recover after missed webhooks, and process items idempotently.';
