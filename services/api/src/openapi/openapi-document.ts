import { rpcMethods } from '@feedback/contracts';
import { SCOPE_NAMES, suggestionViewSchema } from '@feedback/contracts';
import { ERROR_STATUS } from '../http/api-error.js';
import { DASHBOARD_ROUTES } from '../routes/dashboard-v1/dashboard-routes.js';
import { createSuggestionRequest } from '../suggestions/suggestion-schemas.js';

/**
 * The OpenAPI 3.1 description of everything the api serves, built from the same JSON Schemas
 * the server validates with and the same route table it mounts, so the two cannot drift.
 */
type Schema = Record<string, unknown>;

const errorSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable code: branch on this.' },
    message: { type: 'string', description: 'Human-readable; do not branch on it.' },
  },
};

const insufficientScopeSchema = {
  type: 'object',
  required: ['error', 'message', 'required_scope', 'granted_scopes', 'manage_scopes_url', 'docs_url'],
  additionalProperties: false,
  properties: {
    error: { const: 'insufficient_scope' },
    message: { type: 'string' },
    required_scope: { enum: SCOPE_NAMES },
    granted_scopes: { type: 'array', items: { enum: SCOPE_NAMES } },
    manage_scopes_url: { type: 'string', format: 'uri' },
    docs_url: { type: 'string', format: 'uri' },
  },
};

const json = (schema: unknown) => ({ 'application/json': { schema } });
const errorResponse = (description: string, schema: unknown = { $ref: '#/components/schemas/Error' }) => ({ description, content: json(schema) });

/** Path and session fields are not in the body. */
function bodySchema(request: Schema, omit: string[]): Schema {
  const properties = { ...(request['properties'] as Record<string, unknown>) };
  for (const field of omit) delete properties[field];
  const required = ((request['required'] as string[] | undefined) ?? []).filter((field) => !omit.includes(field));
  return { ...request, properties, required };
}

function dashboardPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of DASHBOARD_ROUTES) {
    const contract = rpcMethods[route.command];
    const path = `/dashboard/v1${route.path.replace(/:(\w+)/g, '{$1}')}`;
    const params = Object.entries(route.params ?? {}).map(([name, field]) => ({
      name,
      in: 'path',
      required: true,
      schema: field === 'app_id' ? { type: 'integer' } : { type: 'string', format: 'uuid' },
    }));
    const status = String(route.status ?? 200);
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.command.replace('authority.', ''),
      summary: route.summary,
      tags: ['Dashboard'],
      security: route.public ? [] : [{ memberSession: [] }],
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: json(bodySchema(contract.request.schema as Schema, ['actor', ...Object.values(route.params ?? {})])) } }
        : {}),
      responses: {
        [status]: status === '204' ? { description: 'Done.' } : { description: 'Success.', content: json(contract.result.schema) },
        '400': errorResponse('The body is invalid: `validation_failed` with the offending `field`.'),
        '401': errorResponse('`invalid_session` or `invalid_credentials`.'),
        ...(route.public ? {} : { '403': errorResponse('`insufficient_role`: this needs an Owner or Admin.'), '404': errorResponse('`not_found`.') }),
        '429': errorResponse('`rate_limited`: too many failed authentications; see Retry-After.'),
        '503': errorResponse('`service_unavailable` or `propagation_unconfirmed`; retry.'),
      },
    };
  }
  return paths;
}

export function buildOpenApiDocument(options: { publicBaseUrl: string }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Feedback platform API',
      version: '1.0.0',
      description:
        'The REST API (`/api/v1`, authenticated by an app secret key with scopes) and the team dashboard API (`/dashboard/v1`, authenticated by a member session). Every error body is `{ error, message }` with a stable `error` code.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.publicBaseUrl }],
    tags: [
      { name: 'Suggestions', description: 'Suggestions from your app users.' },
      { name: 'Meta', description: 'This description.' },
      { name: 'Dashboard', description: 'Team, members, apps and API keys (Owner and Admin manage keys).' },
    ],
    components: {
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sk_live_…',
          description: "The app's secret key: `Authorization: Bearer sk_live_…`. Each operation names the scope it needs in `x-required-scope`.",
        },
        memberSession: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token answered by sign-up or sign-in.' },
      },
      schemas: { Error: errorSchema, InsufficientScopeError: insufficientScopeSchema, Suggestion: suggestionViewSchema },
    },
    paths: {
      '/api/v1/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document. Public: no key needed.',
          tags: ['Meta'],
          security: [],
          responses: {
            '200': { description: 'The OpenAPI document.', content: json({ type: 'object' }) },
            '4XX': errorResponse('A client error, with the usual error body.'),
          },
        },
      },
      '/api/v1/suggestions': {
        post: {
          operationId: 'createSuggestion',
          summary: 'Creates a suggestion on behalf of one of your users. Scope: suggestions:write.',
          tags: ['Suggestions'],
          security: [{ secretKey: [] }],
          'x-required-scope': 'suggestions:write',
          requestBody: { required: true, content: json(createSuggestionRequest.schema) },
          responses: {
            '201': { description: 'Created.', content: json({ $ref: '#/components/schemas/Suggestion' }) },
            '400': errorResponse('`validation_failed` (with `field`) or `malformed_json`.'),
            '401': errorResponse('`missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate.'),
            // `error` tells which: insufficient_scope carries the fields of specification section 7.
            '403': errorResponse('`insufficient_scope` (with the fields below) or `plan_upgrade_required`.', {
              anyOf: [{ $ref: '#/components/schemas/InsufficientScopeError' }, { $ref: '#/components/schemas/Error' }],
            }),
            '429': errorResponse('`rate_limited`; see Retry-After.'),
            '503': errorResponse('`service_unavailable`; retry after Retry-After.'),
          },
        },
      },
      ...dashboardPaths(),
    },
  };
}
