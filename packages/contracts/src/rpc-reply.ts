import { defineContract } from './contract.js';

/** Every RPC answer: the method's result, or an error with a stable code. */
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
