import { defineContract, requiredText } from './contract.js';
import { EVENT_NAMES } from './event-names.js';
import { PLANS, planVersionSchema } from './authority-views.js';
import { listOf, pageOf, pageRequestFields } from './rpc-lists.js';
import { attemptSchema, auditEntrySchema, DELIVERY_STATUSES, deliverySchema, endpointSchema, RECOVERABLE_STATUSES, recoverySchema } from './webhook-views.js';

/**
 * What the api passes to the worker about the acting member: what the authority answered, with
 * `grant`, the authority's signature over it. The worker acts only on a grant it verifies.
 */
const endpointOwner = {
  type: 'object',
  required: ['team_id', 'app_id', 'plan', 'plan_version', 'grant'],
  additionalProperties: false,
  properties: {
    team_id: { type: 'string', format: 'uuid' },
    app_id: { type: 'integer' },
    plan: { enum: PLANS },
    plan_version: planVersionSchema,
    grant: { type: 'string', minLength: 1, maxLength: 2000 },
  },
} as const;

/** A worker request on behalf of an endpoint owner, with these fields. */
function withOwner<const P extends Record<string, unknown>, const R extends readonly string[]>(properties: P, required: R) {
  return {
    type: 'object',
    required: ['owner', ...required],
    additionalProperties: false,
    properties: { owner: endpointOwner, ...properties },
  } as const;
}

const endpointId = { type: 'string', format: 'uuid' } as const;
const deliveryId = { type: 'string', format: 'uuid' } as const;

const endpointFields = {
  name: requiredText(100),
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  events: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
} as const;

/** The methods the webhook worker answers: endpoints, deliveries and their history, recoveries, `listen` sessions. */
export const webhookWorkerRpcMethods = {
  /** Creates an endpoint; the result shows its signing secret, once. Errors: plan_limit_reached, unsafe_url. */
  'webhook-worker.createEndpoint': {
    atMostOnce: true,
    request: defineContract('webhook-worker.createEndpoint.request', withOwner({ ...endpointFields }, ['name', 'url', 'events'])),
    result: defineContract('webhook-worker.createEndpoint.result', {
      type: 'object',
      required: ['endpoint', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint: endpointSchema, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /**
   * The app's endpoints, oldest first, a page at a time. Without `cursor` or `limit` (an api from
   * before the list paged), every endpoint, and no `next_cursor`. Errors: invalid_cursor.
   */
  'webhook-worker.listEndpoints': {
    request: defineContract(
      'webhook-worker.listEndpoints.request',
      withOwner(pageRequestFields, []),
    ),
    // A page, whose `next_cursor` an answer to an api from before paging leaves out.
    result: defineContract('webhook-worker.listEndpoints.result', { ...pageOf(endpointSchema), required: ['items'] } as const),
  },
  /** One endpoint (never its secret). Errors: not_found. */
  'webhook-worker.getEndpoint': {
    request: defineContract('webhook-worker.getEndpoint.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.getEndpoint.result', endpointSchema),
  },
  /** Errors: not_found, unsafe_url. */
  'webhook-worker.updateEndpoint': {
    request: defineContract('webhook-worker.updateEndpoint.request', withOwner({ endpoint_id: endpointId, ...endpointFields }, ['endpoint_id'])),
    result: defineContract('webhook-worker.updateEndpoint.result', endpointSchema),
  },
  'webhook-worker.deleteEndpoint': {
    request: defineContract('webhook-worker.deleteEndpoint.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.deleteEndpoint.result', { type: 'object', additionalProperties: false } as const),
  },
  /** A new secret, shown once; the previous one stops signing at once. Errors: not_found, secret_rotated_meanwhile (another rotation at the same moment won). */
  'webhook-worker.rotateEndpointSecret': {
    request: defineContract('webhook-worker.rotateEndpointSecret.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.rotateEndpointSecret.result', {
      type: 'object',
      required: ['endpoint', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint: endpointSchema, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /** Send test: a webhook.ping to this endpoint only, through the delivery pipeline. */
  'webhook-worker.sendTest': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.sendTest.request',
      withOwner({ endpoint_id: endpointId, public_key: { type: 'string' }, member_name: { type: 'string' } }, ['endpoint_id', 'public_key', 'member_name']),
    ),
    result: defineContract('webhook-worker.sendTest.result', deliverySchema),
  },
  /**
   * An endpoint's deliveries, newest first (ties by id), a page at a time: `next_cursor` (null on
   * the last page) is passed back as `cursor` for the next. Errors: not_found, invalid_cursor.
   */
  'webhook-worker.listDeliveries': {
    request: defineContract(
      'webhook-worker.listDeliveries.request',
      withOwner(
        {
          endpoint_id: endpointId,
          ...pageRequestFields,
          /** Only deliveries in one of these statuses. */
          status: { type: 'array', items: { enum: DELIVERY_STATUSES }, minItems: 1, uniqueItems: true },
          /** Only deliveries of one of these events. */
          event: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
        },
        ['endpoint_id'],
      ),
    ),
    result: defineContract('webhook-worker.listDeliveries.result', pageOf(deliverySchema)),
  },
  'webhook-worker.getDelivery': {
    request: defineContract('webhook-worker.getDelivery.request', withOwner({ endpoint_id: endpointId, delivery_id: deliveryId }, ['endpoint_id', 'delivery_id'])),
    result: defineContract('webhook-worker.getDelivery.result', {
      type: 'object',
      required: ['delivery', 'request_body', 'attempt_log'],
      additionalProperties: false,
      properties: {
        delivery: deliverySchema,
        request_body: {
          type: ['string', 'null'],
          description: 'The body every attempt sends, byte for byte as signed. Null once an erasure removed what named the user.',
        },
        attempt_log: { type: 'array', items: attemptSchema },
      },
    } as const),
  },
  /**
   * Sends a settled (delivered, abandoned or cancelled) delivery again by hand: one more attempt, with the
   * same id, and no retries after it. Errors: not_found, delivery_in_progress, delivery_withheld
   * (it names an erased user).
   */
  'webhook-worker.redeliver': {
    atMostOnce: true,
    request: defineContract('webhook-worker.redeliver.request', withOwner({ endpoint_id: endpointId, delivery_id: deliveryId }, ['endpoint_id', 'delivery_id'])),
    result: defineContract('webhook-worker.redeliver.result', deliverySchema),
  },
  /**
   * Recover: redelivers, once each and paced through the endpoint's limits, every delivery created
   * in [since, until) in one of `statuses` (default abandoned and held), of `events` if given.
   * Errors: not_found, endpoint_paused, recovery_in_progress.
   */
  'webhook-worker.startRecovery': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.startRecovery.request',
      withOwner(
        {
          endpoint_id: endpointId,
          member_name: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
          until: { type: 'string', format: 'date-time' },
          statuses: { type: 'array', items: { enum: RECOVERABLE_STATUSES }, minItems: 1, uniqueItems: true },
          events: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
        },
        ['endpoint_id', 'member_name', 'since'],
      ),
    ),
    result: defineContract('webhook-worker.startRecovery.result', recoverySchema),
  },
  /** The endpoint's recoveries, newest first (the latest 20). Errors: not_found. */
  'webhook-worker.listRecoveries': {
    request: defineContract('webhook-worker.listRecoveries.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.listRecoveries.result', listOf(recoverySchema)),
  },
  'webhook-worker.getRecovery': {
    request: defineContract('webhook-worker.getRecovery.request', withOwner({ endpoint_id: endpointId, recovery_id: { type: 'string', format: 'uuid' } }, ['endpoint_id', 'recovery_id'])),
    result: defineContract('webhook-worker.getRecovery.result', recoverySchema),
  },
  /** Stops a running recovery: nothing more is queued. Errors: not_found, recovery_ended. */
  'webhook-worker.cancelRecovery': {
    request: defineContract(
      'webhook-worker.cancelRecovery.request',
      withOwner({ endpoint_id: endpointId, recovery_id: { type: 'string', format: 'uuid' }, member_name: { type: 'string' } }, ['endpoint_id', 'recovery_id', 'member_name']),
    ),
    result: defineContract('webhook-worker.cancelRecovery.result', recoverySchema),
  },
  /** Pauses the endpoint by hand; paused already, it stays as it is. Errors: not_found. */
  'webhook-worker.pauseEndpoint': {
    request: defineContract('webhook-worker.pauseEndpoint.request', withOwner({ endpoint_id: endpointId, member_name: { type: 'string' } }, ['endpoint_id', 'member_name'])),
    result: defineContract('webhook-worker.pauseEndpoint.result', endpointSchema),
  },
  /** Resumes a paused endpoint: deliveries go out again; its held ones wait for a Recover. Errors: not_found. */
  'webhook-worker.resumeEndpoint': {
    request: defineContract('webhook-worker.resumeEndpoint.request', withOwner({ endpoint_id: endpointId, member_name: { type: 'string' } }, ['endpoint_id', 'member_name'])),
    result: defineContract('webhook-worker.resumeEndpoint.result', endpointSchema),
  },
  /** The app's webhook audit: pauses, resumes and recoveries, newest first (the latest 500). */
  'webhook-worker.listWebhookAudit': {
    request: defineContract('webhook-worker.listWebhookAudit.request', withOwner({}, [])),
    result: defineContract('webhook-worker.listWebhookAudit.result', listOf(auditEntrySchema)),
  },
  /**
   * A `listen` session: an endpoint without a URL whose deliveries go to the broker queue
   * `queue`, which the api instance holding the tool's connection consumes. The result shows its
   * signing secret, once. Errors: plan_limit_reached.
   */
  'webhook-worker.openListenSession': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.openListenSession.request',
      withOwner({ queue: { type: 'string', minLength: 1, maxLength: 200 }, events: endpointFields.events, member_name: { type: 'string' } }, ['queue', 'events', 'member_name']),
    ),
    result: defineContract('webhook-worker.openListenSession.result', {
      type: 'object',
      required: ['endpoint_id', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint_id: { type: 'string', format: 'uuid' }, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /** The tool disconnected: nothing more is sent to the session; its history stays. */
  'webhook-worker.closeListenSession': {
    request: defineContract('webhook-worker.closeListenSession.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.closeListenSession.result', { type: 'object', additionalProperties: false } as const),
  },
} as const;
