import { defineContract } from './contract.js';
import { appRefSchema, appWithPlanSchema, scopeSchema } from './authority-views.js';

/**
 * The calls the authority answers on its hot queue, `authority.hot-requests`: those on the api's
 * request path. Key checks, session keys and lease renewals never wait behind slower commands.
 */
export const authorityHotRpcMethods = {
  /**
   * Resolves a secret key, presented as its SHA-256 hash so the key itself never crosses the
   * broker. Errors: unknown_key, revoked_key.
   */
  'authority.verifySecretKey': {
    lane: 'hot',
    request: defineContract('authority.verifySecretKey.request', {
      type: 'object',
      required: ['key_hash'],
      additionalProperties: false,
      properties: { key_hash: { type: 'string', pattern: '^[a-f0-9]{64}$' } },
    } as const),
    result: defineContract('authority.verifySecretKey.result', {
      type: 'object',
      required: ['key_id', 'app', 'team_id', 'plan', 'scopes', 'full_access'],
      additionalProperties: false,
      properties: {
        key_id: { type: 'string' },
        app: appRefSchema,
        team_id: { type: 'string' },
        plan: { enum: ['free', 'starter', 'pro'] },
        scopes: { type: 'array', items: scopeSchema, uniqueItems: true },
        full_access: { type: 'boolean' },
      },
    } as const),
  },
  /** The public keys that verify member session tokens (a JSON Web Key Set). */
  'authority.getSessionKeys': {
    lane: 'hot',
    request: defineContract('authority.getSessionKeys.request', { type: 'object', additionalProperties: false } as const),
    result: defineContract('authority.getSessionKeys.result', {
      type: 'object',
      required: ['keys'],
      additionalProperties: false,
      properties: { keys: { type: 'array', items: { type: 'object' } } },
    } as const),
  },
  /**
   * An api instance says it is alive and may serve keys from its cache for `cache_ttl_ms` from
   * now. Key changes wait for every instance whose lease has not ended.
   */
  'authority.registerApiInstance': {
    lane: 'hot',
    request: defineContract('authority.registerApiInstance.request', {
      type: 'object',
      required: ['instance_id', 'cache_ttl_ms'],
      additionalProperties: false,
      properties: { instance_id: { type: 'string', format: 'uuid' }, cache_ttl_ms: { type: 'integer', minimum: 0, maximum: 3_600_000 } },
    } as const),
    result: defineContract('authority.registerApiInstance.result', {
      type: 'object',
      required: ['lease_until'],
      additionalProperties: false,
      properties: { lease_until: { type: 'string', format: 'date-time' } },
    } as const),
  },
  /** An api instance stopping: key changes stop waiting for it. */
  'authority.unregisterApiInstance': {
    lane: 'hot',
    request: defineContract('authority.unregisterApiInstance.request', {
      type: 'object',
      required: ['instance_id'],
      additionalProperties: false,
      properties: { instance_id: { type: 'string', format: 'uuid' } },
    } as const),
    result: defineContract('authority.unregisterApiInstance.result', { type: 'object', additionalProperties: false } as const),
  },
  /** Resolves an app's public key, for the widget. Errors: unknown_key. */
  'authority.verifyPublicKey': {
    lane: 'hot',
    request: defineContract('authority.verifyPublicKey.request', {
      type: 'object',
      required: ['public_key'],
      additionalProperties: false,
      properties: { public_key: { type: 'string', pattern: '^pk_live_[0-9A-Za-z]{22}$' } },
    } as const),
    result: defineContract('authority.verifyPublicKey.result', appWithPlanSchema),
  },
} as const;
