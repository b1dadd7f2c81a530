import { defineContract } from './contract.js';

/** A message on the worker's delivery queues: which delivery to attempt (the attempt number is a header). */
export const deliveryMessageContract = defineContract('webhook-delivery', {
  type: 'object',
  required: ['delivery_id'],
  additionalProperties: false,
  properties: { delivery_id: { type: 'string', format: 'uuid' } },
} as const);
export type DeliveryMessage = ReturnType<typeof deliveryMessageContract.parse>;
