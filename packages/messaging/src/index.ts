export { Broker } from './broker.js';
export type { BrokerOptions, ChannelSetup } from './broker.js';
export { ConfirmedPublisher, UnroutableMessageError } from './publisher.js';
export type { PublishOptions } from './publisher.js';
export { startConsumer, consumeQueue, PermanentFailure } from './consumer.js';
export type { Consumer, ConsumerOptions } from './consumer.js';
export { serveRpc, laneOf, RpcClient, RpcClientClosedError, RpcError, RpcNoServiceError, RpcTimeoutError } from './rpc.js';
export type { RpcCall, RpcHandlers, RpcServer } from './rpc.js';
export { topologyNames, declareExchanges, QUORUM_QUEUE } from './topology.js';
export type { RpcLane, SharedExchange, TopologyNames } from './topology.js';
export { AcknowledgedBroadcast, BroadcastTimeoutError, acknowledgeBroadcast } from './acknowledged-broadcast.js';
export type { ChannelWrapper } from 'amqp-connection-manager';
export {
  PRODUCTION_RETRY_DELAYS_MS,
  PRODUCTION_THROTTLE_DELAYS_MS,
  ABANDONED_QUEUE_LIMITS,
  ATTEMPT_HEADER,
  MANUAL_HEADER,
  THROTTLED_HEADER,
  GIVEN_BEFORE_HEADER,
  webhookQueueNames,
  throttleFor,
  declareWebhookTopology,
} from './webhook-topology.js';
export { durableBrokerObjects } from './broker-objects.js';
export type { WebhookQueueNames } from './webhook-topology.js';
export { BROKER_SERVICES, applyBrokerLogins, brokerDefinitions, brokerLoginCommands, brokerPermissions, deleteBrokerLogins, rabbitPasswordHash } from './broker-logins.js';
export type { BrokerPermissions, BrokerService, TopicPermission } from './broker-logins.js';
