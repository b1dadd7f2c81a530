import { defineContract } from './contract.js';

/** Most deliveries one message names. */
export const DELIVERY_GROUP_LIMIT = 500;

/**
 * A message on the worker's delivery queues: which delivery to attempt, or a group of them that
 * wait together (the attempt number and flags are headers, the same for the whole group). A
 * group keeps a backlog at a slow host to one broker message per event, instead of one per
 * delivery.
 */
export const deliveryMessageContract = defineContract('webhook-delivery', {
  oneOf: [
    {
      type: 'object',
      required: ['delivery_id'],
      additionalProperties: false,
      properties: { delivery_id: { type: 'string', format: 'uuid' } },
    },
    {
      type: 'object',
      required: ['delivery_ids'],
      additionalProperties: false,
      properties: { delivery_ids: { type: 'array', minItems: 1, maxItems: DELIVERY_GROUP_LIMIT, uniqueItems: true, items: { type: 'string', format: 'uuid' } } },
    },
  ],
} as const);
export type DeliveryMessage = ReturnType<typeof deliveryMessageContract.parse>;

/** The deliveries a message names, one or a group. */
export const deliveriesOf = (message: DeliveryMessage): string[] => ('delivery_ids' in message ? message.delivery_ids : [message.delivery_id]);

/** The messages that carry `ids` together: one for a single delivery, else groups of at most DELIVERY_GROUP_LIMIT. */
export function deliveryMessagesFor(ids: readonly string[]): DeliveryMessage[] {
  if (ids.length === 1) return [{ delivery_id: ids[0]! }];
  const messages: DeliveryMessage[] = [];
  for (let start = 0; start < ids.length; start += DELIVERY_GROUP_LIMIT) messages.push({ delivery_ids: ids.slice(start, start + DELIVERY_GROUP_LIMIT) });
  return messages;
}
