import { DELIVERY_STATUSES, EVENT_NAMES } from '@feedback/contracts';
import { appParameter, cursorParameter, deliveryParameter, endpointParameter, historyQuery, limitParameter, listParameter } from './webhook-parameters.js';
import { webhookRoute } from './webhook-route.js';

/** An endpoint's delivery history, one delivery with its attempts, and a redelivery. */
export const DELIVERY_ROUTES = [
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/:endpointId/deliveries',
    operationId: 'listDeliveries',
    summary: 'Owner or Admin: deliveries, newest first: status, response code, attempts; filtered by `status` and `event` if given. A settled delivery is kept 30 days (by default) after its last change. `next_cursor` (null on the last page) passed back as `cursor` gives the next page (`invalid_cursor` if it is not from this history).',
    command: 'webhook-worker.listDeliveries',
    codes: ['invalid_cursor'],
    parameters: [
      appParameter,
      endpointParameter,
      cursorParameter,
      limitParameter('Deliveries per page.'),
      listParameter('status', 'Only deliveries in one of these statuses, separated by commas (or the parameter given again).', DELIVERY_STATUSES),
      listParameter('event', 'Only deliveries of one of these events, separated by commas (or the parameter given again).', EVENT_NAMES),
    ],
    handler: ({ call, timeout, ownerOf, endpointId }) => async (request, response) => {
      const owner = await ownerOf(request);
      const page = historyQuery(request.query);
      response.json(await call('webhook-worker.listDeliveries', { owner, endpoint_id: endpointId(request), ...page }, timeout));
    },
  }),
  webhookRoute({
    method: 'get',
    path: '/apps/:appId/webhooks/:endpointId/deliveries/:deliveryId',
    operationId: 'getDelivery',
    summary: 'Owner or Admin: one delivery and its latest 100 attempts, oldest first: time, duration, response code, error, start of the answer, and the request as sent (URL and headers, the signature included). `request_body` is the body every attempt sent; null once an erasure removed it.',
    command: 'webhook-worker.getDelivery',
    codes: [],
    parameters: [appParameter, endpointParameter, deliveryParameter],
    handler: ({ call, timeout, ownerOf, endpointId, deliveryId }) => async (request, response) => {
      const owner = await ownerOf(request);
      response.json(await call('webhook-worker.getDelivery', { owner, endpoint_id: endpointId(request), delivery_id: deliveryId(request) }, timeout));
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/apps/:appId/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    operationId: 'redeliver',
    summary: 'Owner or Admin: one more attempt with the same id, once the delivery has settled (delivered, abandoned or cancelled).',
    command: 'webhook-worker.redeliver',
    status: '202',
    codes: ['delivery_in_progress', 'delivery_withheld'],
    parameters: [appParameter, endpointParameter, deliveryParameter],
    handler: ({ call, timeout, ownerOf, endpointId, deliveryId }) => async (request, response) => {
      const owner = await ownerOf(request);
      const delivery = await call('webhook-worker.redeliver', { owner, endpoint_id: endpointId(request), delivery_id: deliveryId(request) }, timeout);
      response.status(202).json(delivery);
    },
  }),
];
