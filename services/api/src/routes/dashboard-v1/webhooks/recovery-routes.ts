import { bodyObject } from '../../../http/read-json-body.js';
import { appParameter, endpointParameter, recoveryParameter } from './webhook-parameters.js';
import { webhookRoute } from './webhook-route.js';

/** Recover: start one, list an endpoint's, read one, cancel one. */
export const RECOVERY_ROUTES = [
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/recoveries',
    operationId: 'startRecovery',
    summary: 'Owner or Admin: Recover. Redelivers, in the background and once each, every delivery made since `since` (and before `until`) in one of `statuses` (default `abandoned` and `held`), of `events` if given, each with its own id, through the endpoint\'s usual limits. One runs per endpoint at a time (`recovery_in_progress`); a paused endpoint is resumed first (`endpoint_paused`).',
    command: 'webhook-worker.startRecovery',
    status: '202',
    bodyOmits: ['endpoint_id', 'member_name'],
    codes: ['endpoint_paused', 'recovery_in_progress'],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId, memberName }) => async (request, response) => {
      const owner = await ownerOf(request);
      const started = await call(
        'webhook-worker.startRecovery',
        { ...bodyObject(request), owner, endpoint_id: endpointId(request), member_name: memberName(request) } as never,
        timeout,
      );
      response.status(202).json(started);
    },
  }),
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/:endpointId/recoveries',
    operationId: 'listRecoveries',
    summary: "Owner or Admin: the endpoint's recoveries, newest first (the latest 20), each with its progress.",
    command: 'webhook-worker.listRecoveries',
    codes: [],
    parameters: [appParameter, endpointParameter],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.listRecoveries', { owner, endpoint_id: endpointId(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/:endpointId/recoveries/:recoveryId',
    operationId: 'getRecovery',
    summary: 'Owner or Admin: one recovery and its progress: delivered, failed, skipped and remaining.',
    command: 'webhook-worker.getRecovery',
    codes: [],
    parameters: [appParameter, endpointParameter, recoveryParameter],
    handler: ({ call, timeout, ownerOf, endpointId, recoveryId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.getRecovery', { owner, endpoint_id: endpointId(request), recovery_id: recoveryId(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/recoveries/:recoveryId/cancel',
    operationId: 'cancelRecovery',
    summary: 'Owner or Admin: stop a running recovery. Nothing more is queued; the few redeliveries already queued still go.',
    command: 'webhook-worker.cancelRecovery',
    codes: ['recovery_ended'],
    parameters: [appParameter, endpointParameter, recoveryParameter],
    handler: ({ call, timeout, ownerOf, endpointId, recoveryId, memberName }) => async (request, response) => {
      const owner = await ownerOf(request);
      const cancelled = await call(
        'webhook-worker.cancelRecovery',
        { owner, endpoint_id: endpointId(request), recovery_id: recoveryId(request), member_name: memberName(request) },
        timeout,
      );
      response.json(cancelled);
    },
  }),
];
