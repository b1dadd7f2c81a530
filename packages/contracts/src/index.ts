export { defineContract, ContractViolation } from './contract.js';
export type { Contract, Violation } from './contract.js';
export { authorSchema, senderSchema } from './identity.js';
export { domainEventContract, EVENT_NAMES } from './domain-event.js';
export type { DomainEvent, EventName } from './domain-event.js';
export { rpcMethods, rpcReplyContract, rpcErrorSchema, SCOPE_NAMES } from './rpc.js';
export type { RpcMethod, RpcRequest, RpcResult, RpcReply, Scope } from './rpc.js';
