import type { ConfirmChannel } from 'amqplib';

/**
 * Every exchange and queue name, in one place. A namespace prefixes them all, so test runs
 * (and several environments on one broker) never see each other's messages. Default: none.
 */
export function topologyNames(namespace = '') {
  const named = (name: string) => `${namespace}${name}`;
  return {
    namespace,
    /** Topic exchange of product events, routed by event name (`suggestion.created`, …). */
    domainEvents: named('domain.events'),
    /** Topic exchange of key and tenancy changes that api instances must see at once. */
    authorityEvents: named('authority.events'),
    /** The worker's durable queue of every domain event. */
    workerDomainEventsQueue: named('webhook-worker.domain-events'),
    /** The authority's queue of key usage reports from api instances. */
    keyUsageQueue: named('authority.key-usage'),
    /**
     * Each service answers RPC on `<service>.requests`, a quorum queue (the classic queues of
     * earlier releases were `<service>.rpc`: a queue's type cannot change under its name).
     */
    rpcQueue: (service: string) => named(`${service}.requests`),
    /**
     * A `listen` session's queue, declared by the api instance that holds the tool's connection:
     * the worker sends the session's requests there, and the api answers each from the tool.
     */
    listenQueue: (sessionId: string) => named(`api.listen.${sessionId}`),
  };
}
export type TopologyNames = ReturnType<typeof topologyNames>;

/** Exchanges every service may publish to; declaring them is idempotent, so each service does. */
export async function declareExchanges(channel: ConfirmChannel, names: TopologyNames): Promise<void> {
  await channel.assertExchange(names.domainEvents, 'topic', { durable: true });
  await channel.assertExchange(names.authorityEvents, 'topic', { durable: true });
}

/** Arguments of a durable quorum queue (replicated on a cluster; survives broker restarts). */
export const QUORUM_QUEUE = { durable: true, arguments: { 'x-queue-type': 'quorum' } } as const;
