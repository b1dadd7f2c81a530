import { createHmac } from 'node:crypto';
import { defineContract } from './contract.js';

/**
 * Internal, never sent to webhook endpoints: an end user's data was erased. It travels on
 * `domain.events` (routing key `privacy.user_erased`) so the worker erases what it holds and
 * withholds the deliveries of events written up to the erasure. The user is named only by a
 * keyed hash.
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
    user_hash: { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'HMAC-SHA-256 of "<app id>:<external id>" under ERASURE_HASH_KEY, in hex; a plain SHA-256 without hash_key.' },
    hash_key: { type: 'string', pattern: '^[a-f0-9]{16}$', description: "The key's id (erasureHashKeyId). Absent from an api of an earlier release, whose hash is a plain SHA-256." },
  },
} as const);
export type UserErased = ReturnType<typeof userErasedContract.parse>;

/**
 * How an erasure names its user: HMAC-SHA-256 under a key the api and the worker share. A plain
 * hash of an app id and an email could be reversed by guessing; without the key it cannot.
 */
export function erasedUserHash(key: Buffer, appId: number, externalId: string): string {
  return createHmac('sha256', key).update(`${appId}:${externalId}`).digest('hex');
}

/**
 * Names a key without revealing it: the worker compares it with its own, and says so loudly when
 * the api's differs, since every erasure would then match nothing.
 */
export function erasureHashKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('feedback erasure hash key id').digest('hex').slice(0, 16);
}
