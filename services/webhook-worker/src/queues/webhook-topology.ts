import type { ConfirmChannel } from 'amqplib';
import { topologyNames } from '@feedback/messaging';
import type { TopologyNames } from '@feedback/messaging';

/** The production retry schedule of specification section 8: 5, 15, 45, 135 and 405 minutes. */
export const PRODUCTION_RETRY_DELAYS_MS = [300_000, 900_000, 2_700_000, 8_100_000, 24_300_000] as const;

/** The attempt number travels in our own header; the broker owns x-death. */
export const ATTEMPT_HEADER = 'x-feedback-attempt';

/** Set on a redelivery made by hand: one attempt, no automatic retries after it. */
export const MANUAL_HEADER = 'x-feedback-manual';

/**
 * How long a message waits, when its endpoint already has enough attempts in flight, before it is
 * tried again: the first rung, or, while the endpoint keeps failing (or struggles behind a large
 * backlog), one rung higher at each return (1 s, 5 s, then 30 s from the third on). A backlog of
 * N messages behind an endpoint that is down then goes round the broker (and the database, which
 * each is checked against) about N/30 times a second instead of N.
 */
export const PRODUCTION_THROTTLE_DELAYS_MS = [1000, 5000, 30_000] as const;

/**
 * What `webhooks.abandoned` keeps for operators: nothing consumes it, and an endpoint that stays
 * down parks one message per event for as long as it is down, so unbounded it would grow until
 * the broker ran out of disk or memory and stopped every publisher. It keeps the newest 100,000
 * (the oldest dropped first) for at most 30 days, the delivery history's default retention. Its
 * messages are copies: the history in the database is the record. A broker policy can lower
 * either bound (the lower of queue and policy applies), not raise it.
 */
export const ABANDONED_QUEUE_LIMITS = { maxLength: 100_000, messageTtlMs: 30 * 24 * 3600_000 } as const;

/** How many times in a row a message has climbed the throttle ladder. */
export const THROTTLED_HEADER = 'x-feedback-throttled';

/**
 * Set on an attempt waiting alone in a throttle queue: its endpoint, and its destination host as
 * the fair share names it. Back to find that host still without room, it waits again before its
 * delivery is read. A hint only: once the host has room, the delivery is read as ever.
 */
export const WAITING_FOR_ENDPOINT_HEADER = 'x-feedback-waiting-for-endpoint';
export const WAITING_FOR_HOST_HEADER = 'x-feedback-waiting-for-host';
/** How many returns in a row such a message was put back unread: past a few, it is read again. */
export const WAITED_UNREAD_HEADER = 'x-feedback-waited-unread';

/**
 * Set on an attempt handed on after its handling failed midway (FanOut): it may have been made
 * and recorded without what follows it being queued, so it is treated as a message the broker
 * gave before, whose follow-up is queued again if its attempt is recorded.
 */
export const GIVEN_BEFORE_HEADER = 'x-feedback-given-before';

/**
 * Names of the delivery queues. Each retry queue carries its delay in its name, so a changed
 * schedule never collides with an existing queue's arguments.
 */
export function webhookQueueNames(
  names: TopologyNames,
  retryDelaysMs: readonly number[],
  throttleDelaysMs: readonly number[],
) {
  const named = (name: string) => `${names.namespace}${name}`;
  return {
    deliver: named('webhooks.deliver'),
    retries: retryDelaysMs.map((delay) => ({ delay, queue: named(`webhooks.retry.${delay}ms`) })),
    abandoned: named('webhooks.abandoned'),
    /** Where a message waits when its endpoint already has enough attempts in flight: a ladder of rising waits. */
    throttles: throttleDelaysMs.map((delay) => ({ delay, queue: named(`webhooks.throttle.${delay}ms`) })),
    /**
     * Groups of attempts wait on the top rung in a queue of their own: those of one event at a
     * slow host, and those the deliver queue's consumer sends there at the same moment. They come
     * back to a deliver queue of their own. A worker of an earlier release reads neither, so it
     * never takes a group it could not read.
     */
    deliverGroups: named('webhooks.deliver-groups'),
    throttleGroups: { delay: throttleDelaysMs.at(-1)!, queue: named(`webhooks.throttle-groups.${throttleDelaysMs.at(-1)!}ms`) },
  };
}
export type WebhookQueueNames = ReturnType<typeof webhookQueueNames>;

/**
 * Every queue `declareWebhookTopology` declares under a namespace, for a test run or a benchmark
 * to remove (`durableBrokerObjects` in `@feedback/messaging`). The delays default to production's.
 */
export function durableWebhookQueues(
  namespace: string,
  retryDelaysMs: readonly number[] = PRODUCTION_RETRY_DELAYS_MS,
  throttleDelaysMs: readonly number[] = PRODUCTION_THROTTLE_DELAYS_MS,
): string[] {
  const queues = webhookQueueNames(topologyNames(namespace), retryDelaysMs, throttleDelaysMs);
  return [
    queues.deliver,
    queues.deliverGroups,
    queues.abandoned,
    ...queues.throttles.map((throttle) => throttle.queue),
    queues.throttleGroups.queue,
    ...queues.retries.map((retry) => retry.queue),
  ];
}

/**
 * Where a message waits when its endpoint has no slot for it: the first rung, or, when it should
 * climb (its endpoint fails, or struggles behind a large backlog), the rung after the one it last waited in
 * (the last one repeated). Returns the queue and the count to carry in THROTTLED_HEADER; a count
 * that is not a whole number of earlier waits (a header set by hand) counts as none.
 */
export function throttleFor(queues: WebhookQueueNames, climb: boolean, header: unknown): { queue: string; throttled: number } {
  const seen = typeof header === 'number' || typeof header === 'string' ? Number(header) : Number.NaN;
  const waited = climb && Number.isSafeInteger(seen) && seen > 0 ? Math.min(seen, queues.throttles.length) : 0;
  return { queue: queues.throttles[Math.min(waited, queues.throttles.length - 1)]!.queue, throttled: climb ? waited + 1 : 0 };
}

/**
 * Declares the delivery topology. Retry queues have no consumers: a message waits there for the
 * queue's TTL, then dead-letters back to the deliver queue. At-least-once dead-lettering (with
 * reject-publish, which it requires) means an expiring message is never lost.
 */
export async function declareWebhookTopology(channel: ConfirmChannel, queues: WebhookQueueNames): Promise<void> {
  await channel.assertQueue(queues.deliver, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.assertQueue(queues.deliverGroups, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.assertQueue(queues.abandoned, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-max-length': ABANDONED_QUEUE_LIMITS.maxLength,
      'x-overflow': 'drop-head',
      'x-message-ttl': ABANDONED_QUEUE_LIMITS.messageTtlMs,
    },
  });
  const waiting = [...queues.retries, ...queues.throttles].map((rung) => ({ ...rung, back: queues.deliver }));
  for (const { delay, queue, back } of [...waiting, { ...queues.throttleGroups, back: queues.deliverGroups }]) {
    await channel.assertQueue(queue, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-message-ttl': delay,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': back,
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
  }
}
