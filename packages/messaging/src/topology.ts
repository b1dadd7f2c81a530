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
    /**
     * Topic exchange of the authority's news: `key.changed` for every api instance at once,
     * `team.plan_changed` for the worker; and `key.used`, the api instances' usage reports.
     */
    authorityEvents: named('authority.events'),
    /** The worker's durable queue of every domain event. */
    workerDomainEventsQueue: named('webhook-worker.domain-events'),
    /** The worker's durable queue of `team.plan_changed`: each team's plan, kept by the worker. */
    workerPlanChangesQueue: named('webhook-worker.plan-changes'),
    /** The authority's queue of key usage reports from api instances. */
    keyUsageQueue: named('authority.key-usage'),
    /**
     * Each service answers RPC on `<service>.requests`, a quorum queue (the classic queues of
     * earlier releases were `<service>.rpc`: a queue's type cannot change under its name).
     */
    rpcQueue: (service: string, lane: RpcLane = 'commands') => named(lane === 'hot' ? `${service}.hot-requests` : `${service}.requests`),
    /**
     * Topic exchange every RPC request is published to, routed by its queue's name. Callers need
     * write on it alone, never on the default exchange, which reaches any queue by name; a topic
     * exchange, so that each login's routing keys can be limited (`brokerPermissions`).
     */
    rpcExchange: named('rpc'),
    /**
     * Direct exchange of acknowledgements to a broadcast, routed by the broadcaster's own queue
     * name: a receiver acknowledges without write on the default exchange.
     */
    replies: named('replies'),
    /**
     * A `listen` session's queue, declared by the api instance that holds the tool's connection:
     * the worker sends the session's requests there, and the api answers each from the tool.
     */
    listenQueue: (sessionId: string) => named(`api.listen.${sessionId}`),
  };
}
export type TopologyNames = ReturnType<typeof topologyNames>;

/**
 * The queue a method's requests wait in. `hot`: calls on the request path (key checks, lease
 * renewals), which must never wait behind slow commands such as password hashing. Default: `commands`.
 */
export type RpcLane = 'hot' | 'commands';

/** The shared topic exchanges. Declaring is idempotent, so each service declares those it uses. */
export type SharedExchange = 'domainEvents' | 'authorityEvents';

/**
 * Declares the shared exchanges a service uses (default: both). A service's broker login may
 * configure only the exchanges it uses, so each names its own.
 */
export async function declareExchanges(channel: ConfirmChannel, names: TopologyNames, which: readonly SharedExchange[] = ['domainEvents', 'authorityEvents']): Promise<void> {
  for (const exchange of which) await channel.assertExchange(names[exchange], 'topic', { durable: true });
}

/** Arguments of a durable quorum queue (replicated on a cluster; survives broker restarts). */
export const QUORUM_QUEUE = { durable: true, arguments: { 'x-queue-type': 'quorum' } } as const;
