import { defineContract } from './contract.js';
import { EVENT_NAMES } from './event-names.js';
import { EVENT_DATA_SCHEMAS } from './product.js';


/**
 * A domain event as it travels on the `domain.events` exchange, routed by its `event` name.
 * `id` identifies the event; each webhook delivery of it gets its own id later. `data` is checked
 * against the schema of its event name.
 */
export const domainEventContract = defineContract('domain-event', {
  type: 'object',
  required: ['id', 'event', 'created_at', 'app', 'data'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    event: { enum: EVENT_NAMES },
    created_at: { type: 'string', format: 'date-time' },
    app: {
      type: 'object',
      required: ['id', 'public_key'],
      additionalProperties: false,
      properties: { id: { type: 'integer' }, public_key: { type: 'string', pattern: '^pk_live_' } },
    },
    data: { type: 'object' },
  },
  allOf: EVENT_NAMES.map((name) => ({
    if: { properties: { event: { const: name } } },
    then: { properties: { data: EVENT_DATA_SCHEMAS[name] } },
  })),
} as const);

export type DomainEvent = ReturnType<typeof domainEventContract.parse>;
