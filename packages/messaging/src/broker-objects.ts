import { topologyNames } from './topology.js';

/**
 * Every durable queue and exchange the services declare under a namespace, so a test run or a
 * benchmark can remove what it made: quorum queues left behind slow the broker for everyone.
 * The webhook worker names its delivery queues itself: pass them as `webhookQueues`, from the
 * worker's `durableWebhookQueues`, or none where no worker ran.
 */
export function durableBrokerObjects(namespace: string, webhookQueues: readonly string[]): { queues: string[]; exchanges: string[] } {
  const names = topologyNames(namespace);
  return {
    queues: [
      names.workerDomainEventsQueue,
      names.workerPlanChangesQueue,
      names.keyUsageQueue,
      names.rpcQueue('authority'),
      names.rpcQueue('authority', 'hot'),
      names.rpcQueue('webhook-worker'),
      ...webhookQueues,
    ],
    exchanges: [names.domainEvents, names.authorityEvents, names.rpcExchange, names.replies],
  };
}
