import { EVENT_DATA_SCHEMAS, SCOPE_NAMES, commentViewSchema, suggestionViewSchema, surveyResponseViewSchema, ticketViewSchema } from '@feedback/contracts';
import { ERROR_STATUS } from '../http/api-error.js';
import { ticketMessageSchema } from '../product/view-schemas.js';
import { API_V1_ROUTES } from '../routes/api-v1/api-v1-router.js';
import { DASHBOARD_V1_ROUTES } from '../routes/dashboard-v1/dashboard-router.js';
import { openApiPaths } from '../routes/route-definition.js';
import { WIDGET_ROUTES } from '../routes/widget-v1/widget-router.js';
import { violationsOmittedSchema, violationsSchema } from './dashboard-errors.js';
import { OPENAPI_ROUTE } from './openapi-route.js';

/**
 * The OpenAPI 3.1 description of everything the api serves. Its paths are the route definitions
 * the routers mount (`routes/route-definition.ts`), so the two cannot disagree. This file holds
 * only what no route owns: the title, the tags, the security schemes and the shared schemas.
 */

const errorSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable code: branch on this.' },
    message: { type: 'string', description: 'Human-readable; do not branch on it.' },
    field: { type: 'string', description: 'With validation_failed: the offending field (JSON Pointer) or parameter.' },
    violations: violationsSchema,
    violations_omitted: violationsOmittedSchema,
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

export function buildOpenApiDocument(options: { publicBaseUrl: string }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Feedback platform API',
      version: '1.0.0',
      description:
        'The REST API (`/api/v1`, an app secret key with scopes), the widget API (`/widget/v1`, the app public key) and the team dashboard API (`/dashboard/v1`, a member session). Every error body is `{ error, message }` with a stable `error` code. Webhook event payloads are described under `x-webhook-event-data`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: options.publicBaseUrl }],
    tags: [
      { name: 'Suggestions', description: 'Suggestions from your app users.' },
      { name: 'Tickets', description: 'Support tickets.' },
      { name: 'Analytics', description: 'Counts over a period.' },
      { name: 'Privacy', description: 'Export and erase one end user.' },
      { name: 'Widget', description: 'What end users do from the in-app widget.' },
      { name: 'Dashboard', description: 'Team, members, apps, API keys, and working on feedback.' },
      { name: 'Webhooks', description: 'Endpoints, signing secrets, Send test, delivery history, redelivery, Recover, pause and `listen` sessions.' },
      { name: 'Meta', description: 'This description.' },
    ],
    components: {
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sk_live_…',
          description: "The app's secret key: `Authorization: Bearer sk_live_…`. Each operation names the scope it needs in `x-required-scope`.",
        },
        publicKey: { type: 'http', scheme: 'bearer', bearerFormat: 'pk_live_…', description: "The app's public key, as the widget holds it." },
        memberSession: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token answered by sign-up or sign-in.' },
      },
      schemas: {
        Error: errorSchema,
        InsufficientScopeError: insufficientScopeSchema,
        Suggestion: suggestionViewSchema,
        Ticket: ticketViewSchema,
        Comment: commentViewSchema,
        TicketMessage: ticketMessageSchema,
        SurveyResponse: surveyResponseViewSchema,
      },
    },
    'x-webhook-event-data': EVENT_DATA_SCHEMAS,
    paths: {
      ...openApiPaths('/api/v1', [OPENAPI_ROUTE]),
      ...openApiPaths('/api/v1', API_V1_ROUTES),
      ...openApiPaths('/widget/v1', WIDGET_ROUTES),
      ...openApiPaths('/dashboard/v1', DASHBOARD_V1_ROUTES),
    },
  };
}
