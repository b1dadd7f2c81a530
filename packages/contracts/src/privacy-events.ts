import { defineContract } from './contract.js';

/**
 * Internal, never sent to webhook endpoints: an end user's data was erased. It travels on
 * `domain.events` (routing key `privacy.user_erased`) so the worker erases what it holds and
 * withholds any later delivery about that user. The user is named only by a hash.
 */
export const userErasedContract = defineContract('privacy.user_erased', {
  type: 'object',
  required: ['id', 'event', 'created_at', 'app_id', 'user_hash'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    event: { const: 'privacy.user_erased' },
    created_at: { type: 'string', format: 'date-time' },
    app_id: { type: 'integer' },
    user_hash: { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'SHA-256 of "<app id>:<external id>".' },
  },
} as const);
export type UserErased = ReturnType<typeof userErasedContract.parse>;
