import { defineContract } from './contract.js';

/** A message on the worker's delivery queues: which delivery to attempt (the attempt number is a header). */
export const deliveryMessageContract = defineContract('webhook-delivery', {
  type: 'object',
  required: ['delivery_id'],
  additionalProperties: false,
  properties: { delivery_id: { type: 'string', format: 'uuid' } },
} as const);
export type DeliveryMessage = ReturnType<typeof deliveryMessageContract.parse>;

/** Most deliveries one group names. */
export const DELIVERY_GROUP_LIMIT = 500;

/**
 * A message on the worker's group queues: deliveries that wait together, with one attempt number
 * and the same flags (headers). A slow host's backlog of one event is then one broker message,
 * not one per delivery.
 */
export const deliveryGroupContract = defineContract('webhook-delivery-group', {
  type: 'object',
  required: ['delivery_ids'],
  additionalProperties: false,
  properties: { delivery_ids: { type: 'array', minItems: 1, maxItems: DELIVERY_GROUP_LIMIT, uniqueItems: true, items: { type: 'string', format: 'uuid' } } },
} as const);
export type DeliveryGroup = ReturnType<typeof deliveryGroupContract.parse>;

/** The groups that carry `ids`, each at most DELIVERY_GROUP_LIMIT. */
export function deliveryGroupsOf(ids: readonly string[]): DeliveryGroup[] {
  const groups: DeliveryGroup[] = [];
  for (let start = 0; start < ids.length; start += DELIVERY_GROUP_LIMIT) groups.push({ delivery_ids: ids.slice(start, start + DELIVERY_GROUP_LIMIT) });
  return groups;
}
