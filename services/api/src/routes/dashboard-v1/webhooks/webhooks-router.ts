import { Router } from 'express';
import { DELIVERY_STATUSES, EVENT_NAMES, PAGE_LIMIT, isUuid } from '@feedback/contracts';
import { redactText } from '@feedback/logging';
import type { Request } from 'express';
import { ApiError } from '../../../http/api-error.js';
import { answerOtherMethods } from '../../../http/method-not-allowed.js';
import { bodyObject } from '../../../http/read-json-body.js';
import { pageParameters, refuseUnknownParameters } from '../../../pagination/page-parameters.js';
import { recordId } from '../../../product/request-schemas.js';
import type { RouteContext } from '../../route-context.js';

/**
 * An endpoint or delivery id from the path. One that is not a UUID names nothing: 404, as for an
 * id no endpoint has, rather than an error about a body the request may not even have.
 */
function pathId(request: Request, param: 'endpointId' | 'deliveryId' | 'recoveryId'): string {
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
function endpointListQuery(query: Request['query']) {
  refuseUnknownParameters(query, ['cursor', 'limit'], 'page with cursor and limit');
  const page = pageParameters(query);
  return { ...page, limit: page.limit ?? PAGE_LIMIT.default };
}

/** The delivery history's query: paging (`cursor`, `limit`) and filters (`status`, `event`). */
function historyQuery(query: Request['query']) {
  refuseUnknownParameters(query, ['cursor', 'limit', 'status', 'event'], 'page with cursor and limit, filter with status and event');
  const page = pageParameters(query);
  const status = filterValues('status', query['status'], DELIVERY_STATUSES);
  const event = filterValues('event', query['event'], EVENT_NAMES);
  return { ...page, ...(status ? { status } : {}), ...(event ? { event } : {}) };
}

/**
 * Webhook endpoints of an app, for Owners and Admins. The authority decides who may (and tells
 * the team's plan); the worker owns the endpoints and answers the commands.
 */
export function webhooksRouter(context: RouteContext): Router {
  const router = Router();
  const call = context.rpc.call.bind(context.rpc);
  const timeout = { timeoutMs: context.dashboardTimeoutMs };
  const authorize = (request: Request) =>
    call(
      'authority.authorizeWebhookManagement',
      { app_id: recordId(request.params['appId']), session: request.member!.token },
      timeout,
    );
  const ownerOf = async (request: Request) => {
    const granted = await authorize(request);
    return { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
  };
  // Each handler asks `ownerOf` first: whoever may not manage webhooks is told so whatever the
  // path or body holds.
  const endpointId = (request: Request) => pathId(request, 'endpointId');
  const deliveryId = (request: Request) => pathId(request, 'deliveryId');
  const recoveryId = (request: Request) => pathId(request, 'recoveryId');
  const memberName = (request: Request) => request.member!.name;

  // Before the endpoint routes, whose `:endpointId` would take these names.
  router.get('/apps/:appId/webhooks/audit', async (request, response) => {
    const owner = await ownerOf(request);
    refuseUnknownParameters(request.query, [], 'this list takes no parameter');
    response.json(await call('webhook-worker.listWebhookAudit', { owner }, timeout));
  });
  // A `listen` session is a WebSocket (listen/listen-hub.ts takes the upgrade); a plain GET is told so.
  router.get('/apps/:appId/webhooks/listen', async (request) => {
    await ownerOf(request);
    throw new ApiError('upgrade_required', 'Connect with a WebSocket (Upgrade: websocket), as `feedback listen` does.', {}, { Upgrade: 'websocket' });
  });

  router.get('/apps/:appId/webhooks', async (request, response) => {
    const owner = await ownerOf(request);
    const page = await call('webhook-worker.listEndpoints', { owner, ...endpointListQuery(request.query) }, timeout);
    response.json({ items: page.items, next_cursor: page.next_cursor ?? null });
  });
  router.post('/apps/:appId/webhooks', async (request, response) => {
    const owner = await ownerOf(request);
    const created = await call('webhook-worker.createEndpoint', { ...bodyObject(request), owner } as never, timeout);
    response.status(201).json(created);
  });
  router.get('/apps/:appId/webhooks/:endpointId', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.getEndpoint', { owner, endpoint_id: endpointId(request) }, timeout));
  });
  router.patch('/apps/:appId/webhooks/:endpointId', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.updateEndpoint', { ...bodyObject(request), endpoint_id: endpointId(request), owner } as never, timeout));
  });
  router.delete('/apps/:appId/webhooks/:endpointId', async (request, response) => {
    const owner = await ownerOf(request);
    await call('webhook-worker.deleteEndpoint', { owner, endpoint_id: endpointId(request) }, timeout);
    response.status(204).end();
  });
  router.post('/apps/:appId/webhooks/:endpointId/rotate-secret', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.rotateEndpointSecret', { owner, endpoint_id: endpointId(request) }, timeout));
  });
  router.post('/apps/:appId/webhooks/:endpointId/test', async (request, response) => {
    const granted = await authorize(request);
    const owner = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
    const delivery = await call(
      'webhook-worker.sendTest',
      { owner, endpoint_id: endpointId(request), public_key: granted.app.public_key, member_name: request.member!.name },
      timeout,
    );
    response.status(202).json(delivery);
  });
  router.get('/apps/:appId/webhooks/:endpointId/deliveries', async (request, response) => {
    const owner = await ownerOf(request);
    const page = historyQuery(request.query);
    response.json(await call('webhook-worker.listDeliveries', { owner, endpoint_id: endpointId(request), ...page }, timeout));
  });
  router.get('/apps/:appId/webhooks/:endpointId/deliveries/:deliveryId', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.getDelivery', { owner, endpoint_id: endpointId(request), delivery_id: deliveryId(request) }, timeout));
  });
  router.post('/apps/:appId/webhooks/:endpointId/deliveries/:deliveryId/redeliver', async (request, response) => {
    const owner = await ownerOf(request);
    const delivery = await call('webhook-worker.redeliver', { owner, endpoint_id: endpointId(request), delivery_id: deliveryId(request) }, timeout);
    response.status(202).json(delivery);
  });
  router.post('/apps/:appId/webhooks/:endpointId/pause', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.pauseEndpoint', { owner, endpoint_id: endpointId(request), member_name: memberName(request) }, timeout));
  });
  router.post('/apps/:appId/webhooks/:endpointId/resume', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.resumeEndpoint', { owner, endpoint_id: endpointId(request), member_name: memberName(request) }, timeout));
  });
  router.post('/apps/:appId/webhooks/:endpointId/recoveries', async (request, response) => {
    const owner = await ownerOf(request);
    const started = await call(
      'webhook-worker.startRecovery',
      { ...bodyObject(request), owner, endpoint_id: endpointId(request), member_name: memberName(request) } as never,
      timeout,
    );
    response.status(202).json(started);
  });
  router.get('/apps/:appId/webhooks/:endpointId/recoveries', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.listRecoveries', { owner, endpoint_id: endpointId(request) }, timeout));
  });
  router.get('/apps/:appId/webhooks/:endpointId/recoveries/:recoveryId', async (request, response) => {
    const owner = await ownerOf(request);
    response.json(await call('webhook-worker.getRecovery', { owner, endpoint_id: endpointId(request), recovery_id: recoveryId(request) }, timeout));
  });
  router.post('/apps/:appId/webhooks/:endpointId/recoveries/:recoveryId/cancel', async (request, response) => {
    const owner = await ownerOf(request);
    const cancelled = await call(
      'webhook-worker.cancelRecovery',
      { owner, endpoint_id: endpointId(request), recovery_id: recoveryId(request), member_name: memberName(request) },
      timeout,
    );
    response.json(cancelled);
  });
  answerOtherMethods(router);
  return router;
}
