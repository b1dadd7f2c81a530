import { EVENT_NAMES } from '@feedback/contracts';
import { ApiError } from '../../../http/api-error.js';
import { refuseUnknownParameters } from '../../../pagination/page-parameters.js';
import { appParameter, listParameter } from './webhook-parameters.js';
import { webhookRoute } from './webhook-route.js';

/** An app's webhook audit, and its `listen` sessions. Mounted before the endpoint routes, whose `:endpointId` would take these names. */
export const APP_WEBHOOK_ROUTES = [
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/audit',
    operationId: 'listWebhookAudit',
    summary: "Owner or Admin: the app's webhook audit, newest first (the latest 500): pauses, by the service or a member, resumes, and recoveries started, cancelled and finished. Entries outlive a deleted endpoint.",
    command: 'webhook-worker.listWebhookAudit',
    codes: [],
    parameters: [appParameter],
    handler: ({ call, timeout, ownerOf }) => async (request, response) => {
      const owner = await ownerOf(request);
      refuseUnknownParameters(request.query, [], 'this list takes no parameter');
      response.json(await call('webhook-worker.listWebhookAudit', { owner }, timeout));
    },
  }),
  // A `listen` session is a WebSocket (listen/listen-hub.ts takes the upgrade); a plain GET is told so.
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/listen',
    operationId: 'listen',
    summary: 'Owner or Admin: a `listen` session, as `feedback listen` opens it: a WebSocket over which the app\'s events come as signed requests to forward to a local receiver.',
    description: [
      'Connect with `Upgrade: websocket` and the member session as `Authorization: Bearer`. `events` (comma-separated) chooses the events; all but `webhook.ping` by default.',
      'Messages are JSON text. The service sends `{"type":"ready","endpoint_id","signing_secret","events"}` once, then `{"type":"request","id","headers","body"}` per delivery attempt: the headers and raw body an endpoint would get, signed with that secret.',
      'The tool answers each with `{"type":"answer","id","status","body_start"}`, or `{"type":"answer","id","error"}` when the local receiver did not answer; the history shows it as the attempt\'s answer.',
      'It sends `{"type":"session","token"}` after each renewal of its session; a session that ends, or a member no longer Owner or Admin, closes the connection (code 4401 or 4403).',
      'When the connection closes, the session ends: nothing more is sent to it, and its history stays (the delivery routes, with `endpoint_id`). A plain GET answers 426 `upgrade_required`.',
    ].join('\n\n'),
    success: { '101': { description: 'Switching Protocols: the WebSocket of the session.' } },
    codes: ['plan_limit_reached', 'upgrade_required'],
    parameters: [appParameter, listParameter('events', 'The events to receive, separated by commas.', EVENT_NAMES)],
    handler: ({ ownerOf }) => async (request) => {
      await ownerOf(request);
      throw new ApiError('upgrade_required', 'Connect with a WebSocket (Upgrade: websocket), as `feedback listen` does.', {}, { Upgrade: 'websocket' });
    },
  }),
];
