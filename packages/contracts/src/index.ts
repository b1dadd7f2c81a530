export { defineContract, ContractViolation, NOT_BLANK, requiredText } from './contract.js';
export type { Contract, Violation } from './contract.js';
export { authorSchema, senderSchema } from './identity.js';
export { domainEventContract } from './domain-event.js';
export type { DomainEvent } from './domain-event.js';
export { EVENT_NAMES } from './event-names.js';
export type { EventName } from './event-names.js';
export { rpcMethods } from './rpc.js';
export type { RpcMethod, RpcRequest, RpcResult } from './rpc.js';
export { rpcReplyContract, rpcErrorSchema } from './rpc-reply.js';
export type { RpcReply } from './rpc-reply.js';
export { PAGE_LIMIT } from './rpc-lists.js';
export { DELIVERY_STATUSES, RECOVERABLE_STATUSES } from './webhook-views.js';
export { SCOPE_NAMES } from './scopes.js';
export { MAX_RECORD_ID } from './record-id.js';
export { isUuid } from './uuid.js';
export type { Scope } from './scopes.js';
export type { Plan } from './authority-views.js';
export { ROLES, PLANS, WEBHOOK_ENDPOINT_LIMITS, KEY_ACTIONS, sessionTokenSchema, apiKeySchema, appSchema, memberSchema, teamSchema, keyAuditEntrySchema } from './authority-views.js';
export { keyChangeContract, keyUsageContract, teamPlanChangedContract } from './authority-events.js';
export type { KeyChange, KeyUsage, TeamPlanChanged } from './authority-events.js';
export {
  SUGGESTION_STATUSES,
  TICKET_STATUSES,
  EVENT_DATA_SCHEMAS,
  suggestionViewSchema,
  ticketViewSchema,
  commentViewSchema,
  surveyResponseViewSchema,
} from './product.js';
export type { SuggestionStatus, TicketStatus } from './product.js';
export { erasedUserHash, erasureHashKeyId, userErasedContract } from './privacy-events.js';
export type { UserErased } from './privacy-events.js';
export { DELIVERY_GROUP_LIMIT, deliveryGroupContract, deliveryGroupsOf, deliveryMessageContract } from './webhook-messages.js';
export type { DeliveryGroup, DeliveryMessage } from './webhook-messages.js';
