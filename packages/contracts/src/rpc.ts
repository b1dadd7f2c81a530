import { defineContract } from './contract.js';

/**
 * Commands and queries between services travel as RPC over RabbitMQ. The method name says which
 * service answers it ("authority.verifySecretKey" goes to the authority's queue); each method has
 * a request and a result contract, validated on receipt at both ends.
 */
export const rpcErrorSchema = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string' }, message: { type: 'string' } },
} as const;

export const rpcReplyContract = defineContract('rpc-reply', {
  oneOf: [
    {
      type: 'object',
      required: ['ok', 'result'],
      additionalProperties: false,
      properties: { ok: { const: true }, result: {} },
    },
    {
      type: 'object',
      required: ['ok', 'error'],
      additionalProperties: false,
      properties: { ok: { const: false }, error: rpcErrorSchema },
    },
  ],
} as const);
export type RpcReply = ReturnType<typeof rpcReplyContract.parse>;

const scopeNames = [
  'suggestions:read',
  'suggestions:write',
  'tickets:read',
  'tickets:write',
  'analytics:read',
  'privacy:read',
  'privacy:write',
] as const;

export const rpcMethods = {
  /**
   * Resolves a secret key, presented as its SHA-256 hash so the key itself never crosses the
   * broker. Errors: unknown_key, revoked_key.
   */
  'authority.verifySecretKey': {
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
        app: {
          type: 'object',
          required: ['id', 'public_key'],
          additionalProperties: false,
          properties: { id: { type: 'integer' }, public_key: { type: 'string' } },
        },
        team_id: { type: 'string' },
        plan: { enum: ['free', 'starter', 'pro'] },
        scopes: { type: 'array', items: { enum: scopeNames }, uniqueItems: true },
        full_access: { type: 'boolean' },
      },
    } as const),
  },
} as const;

export type RpcMethod = keyof typeof rpcMethods;
export type RpcRequest<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['request']['parse']>;
export type RpcResult<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['result']['parse']>;
export { scopeNames as SCOPE_NAMES };
export type Scope = (typeof scopeNames)[number];
