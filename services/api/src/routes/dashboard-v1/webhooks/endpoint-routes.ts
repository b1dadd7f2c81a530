import { rpcMethods } from '@feedback/contracts';
import { bodyObject } from '../../../http/read-json-body.js';
import { json } from '../../../openapi/openapi-parts.js';
import { appParameter, cursorParameter, endpointListQuery, endpointParameter, limitParameter } from './webhook-parameters.js';
import { webhookRoute } from './webhook-route.js';

/** An app's webhook endpoints: list, create, read, change, delete, rotate the secret, Send test, pause and resume. */
export const ENDPOINT_ROUTES = [
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks',
    operationId: 'listEndpoints',
    summary: "Owner or Admin: the app's webhook endpoints, oldest first (never their secrets). `next_cursor` (null on the last page) passed back as `cursor` gives the next page, which goes on from where the last one ended even if that endpoint was deleted since (`invalid_cursor` if it is not from this app's list).",
    command: 'webhook-worker.listEndpoints',
    // The api always answers `next_cursor`; only an old api's request to the worker lacks it.
    success: { '200': { description: 'Success.', content: json({ ...(rpcMethods['webhook-worker.listEndpoints'].result.schema as object), required: ['items', 'next_cursor'] }) } },
    codes: ['invalid_cursor'],
    parameters: [appParameter, cursorParameter, limitParameter('Endpoints per page.')],
    handler: ({ call, timeout, ownerOf }) => async (request, response) => {
      const owner = await ownerOf(request);
      const page = await call('webhook-worker.listEndpoints', { owner, ...endpointListQuery(request.query) }, timeout);
      response.json({ items: page.items, next_cursor: page.next_cursor ?? null });
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks',
    operationId: 'createEndpoint',
    summary: 'Owner or Admin: a public HTTPS endpoint and its events; the answer shows the signing secret, once. Free: none; Starter: 3; Pro: unlimited (`plan_limit_reached`). Unsafe URLs: `unsafe_url`.',
    command: 'webhook-worker.createEndpoint',
    status: '201',
    bodyOmits: [],
    codes: ['plan_limit_reached', 'unsafe_url'],
    parameters: [appParameter],
    handler: ({ call, timeout, ownerOf }) => async (request, response) => {
      const owner = await ownerOf(request);
      const created = await call('webhook-worker.createEndpoint', { ...bodyObject(request), owner } as never, timeout);
      response.status(201).json(created);
    },
  }),
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/:endpointId',
    operationId: 'getEndpoint',
    summary: 'Owner or Admin: one endpoint: name, URL and events (never its secret).',
    command: 'webhook-worker.getEndpoint',
    codes: [],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.getEndpoint', { owner, endpoint_id: endpointId(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'patch',
    path: '/apps/:appId/webhooks/:endpointId',
    operationId: 'updateEndpoint',
    summary: 'Owner or Admin: change name, URL or events (a new URL is checked as on creation: `unsafe_url`).',
    command: 'webhook-worker.updateEndpoint',
    bodyOmits: ['endpoint_id'],
    codes: ['unsafe_url'],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.updateEndpoint', { ...bodyObject(request), endpoint_id: endpointId(request), owner } as never, timeout));
    },
  }),
  webhookRoute({
    method: 'delete',
    path: '/apps/:appId/webhooks/:endpointId',
    operationId: 'deleteEndpoint',
    summary: 'Owner or Admin: delete the endpoint and its delivery history.',
    command: 'webhook-worker.deleteEndpoint',
    success: { '204': { description: 'Deleted.' } },
    codes: [],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      await call('webhook-worker.deleteEndpoint', { owner, endpoint_id: endpointId(request) }, timeout);
      response.status(204).end();
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/rotate-secret',
    operationId: 'rotateEndpointSecret',
    summary: 'Owner or Admin: a new signing secret, shown once; the previous one stops signing at once. A rotation that could not answer before the dashboard stopped waiting is rolled back and answered 503 `service_unavailable`: the previous secret keeps signing, and pressing again rotates.',
    command: 'webhook-worker.rotateEndpointSecret',
    codes: ['secret_rotated_meanwhile'],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.rotateEndpointSecret', { owner, endpoint_id: endpointId(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/test',
    operationId: 'sendTest',
    summary: 'Owner or Admin: delivers a webhook.ping to this endpoint, retried on the usual schedule if it fails.',
    command: 'webhook-worker.sendTest',
    status: '202',
    codes: ['too_many_test_deliveries'],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, authorize, endpointId }) => async (request, response) => {
      const granted = await authorize(request);
      const owner = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
      const delivery = await call(
        'webhook-worker.sendTest',
        { owner, endpoint_id: endpointId(request), public_key: granted.app.public_key, member_name: request.member!.name },
        timeout,
      );
      response.status(202).json(delivery);
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/pause',
    operationId: 'pauseEndpoint',
    summary: 'Owner or Admin: pause the endpoint. Its deliveries are recorded as held, not sent, until it is resumed; Send test still goes. Its running recovery ends. Paused already, it stays as it is.',
    command: 'webhook-worker.pauseEndpoint',
    codes: [],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId, memberName }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.pauseEndpoint', { owner, endpoint_id: endpointId(request), member_name: memberName(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/resume',
    operationId: 'resumeEndpoint',
    summary: 'Owner or Admin: resume a paused endpoint. Deliveries go out again; the held ones wait for a Recover (statuses `held`, the default).',
    command: 'webhook-worker.resumeEndpoint',
    codes: [],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId, memberName }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.resumeEndpoint', { owner, endpoint_id: endpointId(request), member_name: memberName(request) }, timeout));
    },
  }),
];
