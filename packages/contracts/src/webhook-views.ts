/** Shapes the webhook worker returns for the dashboard: endpoints, deliveries, attempts, recoveries and the audit. */
import { EVENT_NAMES } from './event-names.js';

const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

const endpointHealthSchema = {
  type: 'object',
  required: ['last_success_at', 'failing_since', 'attempts_last_day', 'success_rate_last_day'],
  additionalProperties: false,
  description: 'How the endpoint has answered. Written by the workers a few times a minute, so it may lag the history by seconds.',
  properties: {
    last_success_at: { ...nullableTime, description: 'When an attempt last got a 2xx; null if none ever did.' },
    failing_since: { ...nullableTime, description: 'The first failed attempt after the last success; null while the endpoint succeeds.' },
    attempts_last_day: { type: 'integer', minimum: 0, description: 'Attempts in the last 24 hours, counted by the hour.' },
    success_rate_last_day: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'Share of those attempts that got a 2xx; null without attempts.' },
  },
} as const;

const endpointPauseSchema = {
  type: ['object', 'null'],
  required: ['paused_at', 'reason', 'paused_by'],
  additionalProperties: false,
  description: 'Null while deliveries go out. Paused, they are recorded as held, and a Recover sends them once resumed.',
  properties: {
    paused_at: { type: 'string', format: 'date-time' },
    reason: {
      enum: ['failing', 'member', 'plan'],
      description:
        "failing: every attempt failed for the pause period (5 days by default); member: paused by hand; plan: beyond the endpoints the team's plan includes, resumed when it includes them again.",
    },
    paused_by: { type: ['string', 'null'], description: 'The member who paused it; null when the service did.' },
  },
} as const;

export const endpointSchema = {
  type: 'object',
  required: ['id', 'app_id', 'name', 'url', 'events', 'created_at', 'updated_at', 'health', 'pause'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    app_id: { type: 'integer' },
    name: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { enum: EVENT_NAMES } },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    health: endpointHealthSchema,
    pause: endpointPauseSchema,
  },
} as const;

/** Statuses a Recover may redeliver. */
export const RECOVERABLE_STATUSES = ['abandoned', 'held', 'cancelled', 'delivered'] as const;

export const recoverySchema = {
  type: 'object',
  required: ['id', 'endpoint_id', 'since', 'until', 'statuses', 'events', 'state', 'total', 'delivered', 'failed', 'skipped', 'remaining', 'started_by', 'created_at', 'ended_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    endpoint_id: { type: 'string', format: 'uuid' },
    since: { type: 'string', format: 'date-time' },
    until: nullableTime,
    statuses: { type: 'array', items: { enum: RECOVERABLE_STATUSES } },
    events: { type: ['array', 'null'], items: { enum: EVENT_NAMES }, description: 'Null: every event.' },
    state: { enum: ['running', 'finished', 'cancelled'], description: 'running until every chosen delivery has been attempted once, or it is cancelled.' },
    total: { type: 'integer', minimum: 0, description: 'Deliveries chosen when it started.' },
    delivered: { type: 'integer', minimum: 0, description: 'Redelivered, and answered with a 2xx.' },
    failed: { type: 'integer', minimum: 0, description: 'Redelivered, and failed; each is abandoned again, and may be recovered again.' },
    skipped: { type: 'integer', minimum: 0, description: 'Not sent: by its turn the delivery was under way, withheld, deleted, or no longer in a chosen status.' },
    remaining: { type: 'integer', minimum: 0, description: 'Not attempted yet, or under way.' },
    started_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    ended_at: nullableTime,
  },
} as const;

export const auditEntrySchema = {
  type: 'object',
  required: ['id', 'endpoint_id', 'endpoint_name', 'action', 'actor', 'detail', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    endpoint_id: { type: 'string', format: 'uuid' },
    endpoint_name: { type: 'string' },
    action: { enum: ['paused', 'resumed', 'recovery_started', 'recovery_cancelled', 'recovery_finished'] },
    actor: { type: ['string', 'null'], description: 'The member; null when the service acted.' },
    detail: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'abandoned', 'withheld', 'cancelled', 'held'] as const;

export const deliverySchema = {
  type: 'object',
  required: ['id', 'event', 'event_id', 'status', 'attempts', 'last_response_code', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The envelope id: the same on every attempt and redelivery.' },
    event: { type: 'string' },
    event_id: { type: 'string', format: 'uuid' },
    status: {
      enum: DELIVERY_STATUSES,
      description: 'pending: not attempted yet; retrying: failed, a retry is scheduled; delivered: a 2xx came back; abandoned: the fifth retry failed, or a redelivery by hand failed; withheld: not sent, it names an erased user; cancelled: not attempted again, its endpoint no longer selects this event; held: not sent, its endpoint is paused (a Recover sends it once resumed).',
    },
    attempts: { type: 'integer' },
    last_response_code: { type: ['integer', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const attemptSchema = {
  type: 'object',
  required: ['number', 'started_at', 'duration_ms', 'response_code', 'error', 'response_body_start', 'request'],
  additionalProperties: false,
  properties: {
    number: { type: 'integer' },
    started_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
    response_body_start: { type: ['string', 'null'], description: 'The first 1 KiB of the answer.' },
    request: {
      type: ['object', 'null'],
      description: 'The request as sent: its URL and every header, the signature included. The body is the delivery\'s `request_body`, the same on every attempt. Null for attempts made before requests were kept.',
      required: ['url', 'headers'],
      additionalProperties: false,
      properties: {
        url: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
} as const;
