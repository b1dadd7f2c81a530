import { topologyNames } from './topology.js';
import { PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS, webhookQueueNames } from './webhook-topology.js';

/**
 * Every durable queue and exchange the services declare under a namespace, so a test run or a
 * benchmark can remove what it made: quorum queues left behind slow the broker for everyone.
 */
export function durableBrokerObjects(
  namespace: string,
  retryDelaysMs: readonly number[] = PRODUCTION_RETRY_DELAYS_MS,
  throttleDelaysMs: readonly number[] = PRODUCTION_THROTTLE_DELAYS_MS,
): { queues: string[]; exchanges: string[] } {
  const names = topologyNames(namespace);
  const webhooks = webhookQueueNames(names, retryDelaysMs, throttleDelaysMs);
  return {
    queues: [
      names.workerDomainEventsQueue,
      names.keyUsageQueue,
      names.rpcQueue('authority'),
      names.rpcQueue('authority', 'hot'),
      names.rpcQueue('webhook-worker'),
      webhooks.deliver,
      webhooks.abandoned,
      ...webhooks.throttles.map((throttle) => throttle.queue),
      ...webhooks.retries.map((retry) => retry.queue),
    ],
    exchanges: [names.domainEvents, names.authorityEvents, names.rpcExchange, names.replies],
  };
}
