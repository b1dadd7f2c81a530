import { DELIVERY_STATUSES, EVENT_DATA_SCHEMAS, EVENT_NAMES, PAGE_LIMIT, SCOPE_NAMES, commentViewSchema, rpcMethods, suggestionViewSchema, surveyResponseViewSchema, ticketViewSchema } from '@feedback/contracts';
import { ERROR_STATUS } from '../http/api-error.js';
import type { ErrorCode } from '../http/api-error.js';
import { ticketMessageSchema } from '../product/view-schemas.js';
import { API_V1_ROUTES } from '../routes/api-v1/api-v1-router.js';
import { BOARD_ROUTES } from '../routes/dashboard-v1/board/board-routes.js';
import { WIDGET_ROUTES } from '../routes/widget-v1/widget-router.js';
import { DASHBOARD_ROUTES } from '../routes/dashboard-v1/dashboard-routes.js';
import { openApiPaths } from '../routes/route-definition.js';
import { dashboardCodes, errorAnswers, violationsOmittedSchema, violationsSchema } from './dashboard-errors.js';
import { bodySchema, errorResponse, idParameter, json, pathParameter } from './openapi-parts.js';
import type { Schema } from './openapi-parts.js';

/**
 * The OpenAPI 3.1 description of everything the api serves, built from the same JSON Schemas
 * the server validates with (request contracts, query contracts, RPC contracts, record views)
 * and the same dashboard route table it mounts.
 */
type Operation = Record<string, unknown>;

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

function dashboardCommandPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of DASHBOARD_ROUTES) {
    const contract = rpcMethods[route.command];
    const path = `/dashboard/v1${route.path.replace(/:(\w+)/g, '{$1}')}`;
    const parameters = Object.entries(route.params ?? {}).map(([name, field]) =>
      pathParameter(name, field === 'app_id' ? { type: 'integer' } : { type: 'string', format: 'uuid' }, field === 'app_id' ? 'App id.' : 'Member id.'),
    );
    const status = String(route.status ?? 200);
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.command.replace('authority.', ''),
      summary: route.summary,
      tags: ['Dashboard'],
      security: route.public ? [] : [{ memberSession: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: json(bodySchema(contract.request.schema as Schema, ['session', ...Object.values(route.params ?? {})])) } }
        : {}),
      responses: {
        [status]: status === '204' ? { description: 'Done.' } : { description: 'Success.', content: json(contract.result.schema) },
        ...errorAnswers(dashboardCodes(route, route.errors ?? [])),
      },
    };
  }
  return paths;
}

/** Webhook endpoints and their deliveries: the worker's RPC contracts, behind Owner/Admin. */
function dashboardWebhookPaths() {
  const app = idParameter('appId');
  const endpoint = pathParameter('endpointId', { type: 'string', format: 'uuid' }, 'Endpoint id.');
  const delivery = pathParameter('deliveryId', { type: 'string', format: 'uuid' }, 'Delivery id (the envelope id).');
  const recovery = pathParameter('recoveryId', { type: 'string', format: 'uuid' }, 'Recovery id.');
  const result = (method: keyof typeof rpcMethods, status = '200') => ({ [status]: { description: 'Success.', content: json(rpcMethods[method].result.schema) } });
  const body = (method: keyof typeof rpcMethods, omit: string[]) => ({
    requestBody: { required: true, content: json(bodySchema(rpcMethods[method].request.schema as Schema, ['owner', ...omit])) },
  });
  // Every webhook operation: who may not, an app, endpoint or delivery not of this team, and a path
  // parameter that is not UTF-8 text (`validation_failed`); `codes` are its own besides.
  const operation = (operationId: string, summary: string, success: Record<string, unknown>, codes: readonly ErrorCode[], extra: Operation = {}) => ({
    operationId,
    summary,
    tags: ['Webhooks'],
    security: [{ memberSession: [] }],
    ...extra,
    responses: { ...success, ...errorAnswers(dashboardCodes({ body: extra.requestBody !== undefined }, ['insufficient_role', 'not_found', 'validation_failed', ...codes])) },
  });
  // The paging of the endpoint list and of the delivery history.
  const cursorParameter = { name: 'cursor', in: 'query', required: false, description: "The previous page's `next_cursor`.", schema: { type: 'string' } };
  const limitParameter = (description: string) => ({ name: 'limit', in: 'query', required: false, description, schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default } });
  return {
    '/dashboard/v1/apps/{appId}/webhooks': {
      get: operation('listEndpoints', "Owner or Admin: the app's webhook endpoints, oldest first (never their secrets). `next_cursor` (null on the last page) passed back as `cursor` gives the next page, which goes on from where the last one ended even if that endpoint was deleted since (`invalid_cursor` if it is not from this app's list).", {
        // The api always answers `next_cursor`; only an old api's request to the worker lacks it.
        '200': { description: 'Success.', content: json({ ...(rpcMethods['webhook-worker.listEndpoints'].result.schema as object), required: ['items', 'next_cursor'] }) },
      }, ['invalid_cursor'], { parameters: [app, cursorParameter, limitParameter('Endpoints per page.')] }),
      post: operation('createEndpoint', 'Owner or Admin: a public HTTPS endpoint and its events; the answer shows the signing secret, once. Free: none; Starter: 3; Pro: unlimited (`plan_limit_reached`). Unsafe URLs: `unsafe_url`.', result('webhook-worker.createEndpoint', '201'), ['plan_limit_reached', 'unsafe_url'], {
        parameters: [app],
        ...body('webhook-worker.createEndpoint', []),
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}': {
      get: operation('getEndpoint', 'Owner or Admin: one endpoint: name, URL and events (never its secret).', result('webhook-worker.getEndpoint'), [], { parameters: [app, endpoint] }),
      patch: operation('updateEndpoint', 'Owner or Admin: change name, URL or events (a new URL is checked as on creation: `unsafe_url`).', result('webhook-worker.updateEndpoint'), ['unsafe_url'], {
        parameters: [app, endpoint],
        ...body('webhook-worker.updateEndpoint', ['endpoint_id']),
      }),
      delete: operation('deleteEndpoint', 'Owner or Admin: delete the endpoint and its delivery history.', { '204': { description: 'Deleted.' } }, [], { parameters: [app, endpoint] }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/rotate-secret': {
      post: operation('rotateEndpointSecret', 'Owner or Admin: a new signing secret, shown once; the previous one stops signing at once. A rotation that could not answer before the dashboard stopped waiting is rolled back and answered 503 `service_unavailable`: the previous secret keeps signing, and pressing again rotates.', result('webhook-worker.rotateEndpointSecret'), ['secret_rotated_meanwhile'], {
        parameters: [app, endpoint],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/test': {
      post: operation('sendTest', 'Owner or Admin: delivers a webhook.ping to this endpoint, retried on the usual schedule if it fails.', result('webhook-worker.sendTest', '202'), ['too_many_test_deliveries'], {
        parameters: [app, endpoint],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries': {
      get: operation('listDeliveries', 'Owner or Admin: deliveries, newest first: status, response code, attempts; filtered by `status` and `event` if given. A settled delivery is kept 30 days (by default) after its last change. `next_cursor` (null on the last page) passed back as `cursor` gives the next page (`invalid_cursor` if it is not from this history).', result('webhook-worker.listDeliveries'), ['invalid_cursor'], {
        parameters: [
          app,
          endpoint,
          cursorParameter,
          limitParameter('Deliveries per page.'),
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Only deliveries in one of these statuses, separated by commas (or the parameter given again).',
            schema: { type: 'array', items: { enum: DELIVERY_STATUSES }, minItems: 1 },
            style: 'form',
            explode: false,
          },
          {
            name: 'event',
            in: 'query',
            required: false,
            description: 'Only deliveries of one of these events, separated by commas (or the parameter given again).',
            schema: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1 },
            style: 'form',
            explode: false,
          },
        ],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries/{deliveryId}': {
      get: operation('getDelivery', 'Owner or Admin: one delivery and its latest 100 attempts, oldest first: time, duration, response code, error, start of the answer, and the request as sent (URL and headers, the signature included). `request_body` is the body every attempt sent; null once an erasure removed it.', result('webhook-worker.getDelivery'), [], {
        parameters: [app, endpoint, delivery],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/pause': {
      post: operation('pauseEndpoint', 'Owner or Admin: pause the endpoint. Its deliveries are recorded as held, not sent, until it is resumed; Send test still goes. Its running recovery ends. Paused already, it stays as it is.', result('webhook-worker.pauseEndpoint'), [], {
        parameters: [app, endpoint],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/resume': {
      post: operation('resumeEndpoint', 'Owner or Admin: resume a paused endpoint. Deliveries go out again; the held ones wait for a Recover (statuses `held`, the default).', result('webhook-worker.resumeEndpoint'), [], {
        parameters: [app, endpoint],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries': {
      post: operation('startRecovery', 'Owner or Admin: Recover. Redelivers, in the background and once each, every delivery made since `since` (and before `until`) in one of `statuses` (default `abandoned` and `held`), of `events` if given, each with its own id, through the endpoint\'s usual limits. One runs per endpoint at a time (`recovery_in_progress`); a paused endpoint is resumed first (`endpoint_paused`).', result('webhook-worker.startRecovery', '202'), ['endpoint_paused', 'recovery_in_progress'], {
        parameters: [app, endpoint],
        ...body('webhook-worker.startRecovery', ['endpoint_id', 'member_name']),
      }),
      get: operation('listRecoveries', "Owner or Admin: the endpoint's recoveries, newest first (the latest 20), each with its progress.", result('webhook-worker.listRecoveries'), [], {
        parameters: [app, endpoint],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries/{recoveryId}': {
      get: operation('getRecovery', 'Owner or Admin: one recovery and its progress: delivered, failed, skipped and remaining.', result('webhook-worker.getRecovery'), [], {
        parameters: [app, endpoint, recovery],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries/{recoveryId}/cancel': {
      post: operation('cancelRecovery', 'Owner or Admin: stop a running recovery. Nothing more is queued; the few redeliveries already queued still go.', result('webhook-worker.cancelRecovery'), ['recovery_ended'], {
        parameters: [app, endpoint, recovery],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/audit': {
      get: operation('listWebhookAudit', "Owner or Admin: the app's webhook audit, newest first (the latest 500): pauses, by the service or a member, resumes, and recoveries started, cancelled and finished. Entries outlive a deleted endpoint.", result('webhook-worker.listWebhookAudit'), [], {
        parameters: [app],
      }),
    },
    '/dashboard/v1/apps/{appId}/webhooks/listen': {
      get: {
        operationId: 'listen',
        summary: 'Owner or Admin: a `listen` session, as `feedback listen` opens it: a WebSocket over which the app\'s events come as signed requests to forward to a local receiver.',
        description: [
          'Connect with `Upgrade: websocket` and the member session as `Authorization: Bearer`. `events` (comma-separated) chooses the events; all but `webhook.ping` by default.',
          'Messages are JSON text. The service sends `{"type":"ready","endpoint_id","signing_secret","events"}` once, then `{"type":"request","id","headers","body"}` per delivery attempt: the headers and raw body an endpoint would get, signed with that secret.',
          'The tool answers each with `{"type":"answer","id","status","body_start"}`, or `{"type":"answer","id","error"}` when the local receiver did not answer; the history shows it as the attempt\'s answer.',
          'It sends `{"type":"session","token"}` after each renewal of its session; a session that ends, or a member no longer Owner or Admin, closes the connection (code 4401 or 4403).',
          'When the connection closes, the session ends: nothing more is sent to it, and its history stays (the delivery routes, with `endpoint_id`). A plain GET answers 426 `upgrade_required`.',
        ].join('\n\n'),
        tags: ['Webhooks'],
        security: [{ memberSession: [] }],
        parameters: [
          app,
          { name: 'events', in: 'query', required: false, description: 'The events to receive, separated by commas.', schema: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1 }, style: 'form', explode: false },
        ],
        responses: {
          '101': { description: 'Switching Protocols: the WebSocket of the session.' },
          ...errorAnswers(dashboardCodes({}, ['insufficient_role', 'not_found', 'validation_failed', 'plan_limit_reached', 'upgrade_required'])),
        },
      },
    },
    '/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver': {
      post: operation('redeliver', 'Owner or Admin: one more attempt with the same id, once the delivery has settled (delivered, abandoned or cancelled).', result('webhook-worker.redeliver', '202'), ['delivery_in_progress', 'delivery_withheld'], {
        parameters: [app, endpoint, delivery],
      }),
    },
  };
}

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
      ...openApiPaths('/api/v1', API_V1_ROUTES),
      ...openApiPaths('/widget/v1', WIDGET_ROUTES),
      ...dashboardCommandPaths(),
      ...openApiPaths('/dashboard/v1', BOARD_ROUTES),
      ...dashboardWebhookPaths(),
    },
  };
}
