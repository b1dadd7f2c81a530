import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ConsumeMessage } from 'amqplib';
import { DELIVERY_GROUP_LIMIT, deliveryGroupContract, deliveryGroupsOf, deliveryMessageContract } from '@feedback/contracts';
import type { DeliveryGroup } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { statementBatches } from '@feedback/database';
import { PermanentFailure, startConsumer } from '@feedback/messaging';
import { ATTEMPT_HEADER, GIVEN_BEFORE_HEADER, MANUAL_HEADER, THROTTLED_HEADER, WAITED_UNREAD_HEADER, WAITING_FOR_ENDPOINT_HEADER, WAITING_FOR_HOST_HEADER, declareWebhookTopology, throttleFor } from '../queues/webhook-topology.js';
import type { Broker, ConfirmedPublisher, Consumer, PublishOptions } from '@feedback/messaging';
import type { WebhookQueueNames } from '../queues/webhook-topology.js';
import type { AttemptMaker } from './attempt-maker.js';
import { automaticAttemptDue } from './attempt-target.js';
import type { AttemptTarget } from './attempt-target.js';
import { hostOf } from './fair-share.js';
import { LISTEN_URL_PREFIX } from '../outbound/listen-relay.js';
import type { AttemptStore } from './attempt-store.js';
import { ThrottleRates } from './throttle-rates.js';
import type { WebhookMetrics } from './webhook-metrics.js';

export interface DeliverOptions {
  broker: Broker;
  store: AttemptStore;
  attempts: AttemptMaker;
  publisher: ConfirmedPublisher;
  queues: WebhookQueueNames;
  logger: Logger;
  metrics: WebhookMetrics;
  /** Attempts one worker takes from the deliver queue at once. Default: 64. */
  prefetch?: number;
  /** Told when a redelivery by hand (a Recover's too) has been made: a Recover queues its next. */
  onManualAttempt?: () => void;
  /**
   * Attempts of a struggling endpoint a second that may find no slot in this worker before they
   * climb the throttle ladder although the endpoint answers: its backlog is then far more than its
   * slots take. Default: 100.
   */
  climbAfterPerSecond?: number;
  /** Draws the paced waits of a busy host's backlog (pacedRung). Default: Math.random. */
  random?: () => number;
}

/** Where an attempt goes to wait, and the headers it carries there. */
export interface HandOff {
  queue: string;
  headers: Record<string, unknown>;
  /**
   * What it waits for, carried only by a message of its own (WAITING_FOR_HOST_HEADER): headers of
   * each member's own would split a group.
   */
  waitingFor?: WaitingFor;
  /**
   * The message's own time to live there, when less than the queue's: a busy host's returns
   * spaced (FairShare.bookReturn). Behind messages that expire later it waits for them, never past
   * the queue's own wait.
   */
  waitMs?: number;
}

/** The endpoint and destination host an attempt waits for: enough to turn it away again unread. */
export interface WaitingFor {
  endpointId: string;
  /** As hostOf names it. */
  host: string;
  /** Returns in a row it was put back unread (WAITED_UNREAD_HEADER). */
  unread: number;
}

/**
 * Returns in a row a message may be put back unread. The next one reads its delivery, so that a
 * deletion, a pause or a new URL meanwhile is seen within a few waits, however busy its old host.
 */
const MOST_UNREAD_RETURNS = 3;

/** What a delivery waits for; none for a listen session, whose destination names the session. */
function waitingForOf(delivery: AttemptTarget): WaitingFor | undefined {
  return delivery.url.startsWith(LISTEN_URL_PREFIX) ? undefined : { endpointId: delivery.endpointId, host: hostOf(delivery.url), unread: 0 };
}

/**
 * The hand-off, with its wait on the first rung spaced (FairShare.bookReturn) when it was turned
 * away for its host's cap and does not climb. A burst refused at once then comes back over the
 * rung's wait, not all at its end, and the host's places stay busy between the returns.
 */
export function spacedOnFirstRung(
  queues: WebhookQueueNames,
  onward: HandOff,
  why: { climb: boolean; refusedAtHost: boolean },
  bookReturn: (host: string, longestMs: number) => number | undefined,
): HandOff {
  const firstRung = queues.throttles[0]!;
  if (why.climb || !why.refusedAtHost || !onward.waitingFor || onward.queue !== firstRung.queue) return onward;
  const waitMs = bookReturn(onward.waitingFor.host, firstRung.delay);
  return waitMs === undefined || waitMs >= firstRung.delay ? onward : { ...onward, waitMs };
}

/** The longest value a hint header may carry: a DNS name and a port, or an endpoint's id. */
const HINT_LENGTH = 300;

/**
 * What a returning message waited for, when it says so plainly and may be put back unread once
 * more: a few returns in a row at most.
 */
export function unreadHintOf(headers: Record<string, unknown> | undefined): WaitingFor | undefined {
  const waitedFor = waitedForOf(headers);
  return waitedFor && waitedFor.unread < MOST_UNREAD_RETURNS ? waitedFor : undefined;
}

/** What a message says its attempt waited for, when it says so plainly. */
function waitedForOf(headers: Record<string, unknown> | undefined): WaitingFor | undefined {
  const endpointId = headers?.[WAITING_FOR_ENDPOINT_HEADER];
  const host = headers?.[WAITING_FOR_HOST_HEADER];
  if (typeof endpointId !== 'string' || typeof host !== 'string' || host.length === 0 || host.length > HINT_LENGTH || endpointId.length > HINT_LENGTH) return undefined;
  const unread = Number(headers?.[WAITED_UNREAD_HEADER] ?? 0);
  return { endpointId, host, unread: Number.isSafeInteger(unread) && unread > 0 ? unread : 0 };
}

/** How a message of its own is sent for delivery `deliveryId`: its id, its headers, and its own time to live if spaced. */
export function singleMessageOptions(onward: HandOff, deliveryId: string): PublishOptions {
  return { messageId: deliveryId, headers: singleMessageHeaders(onward), ...(onward.waitMs === undefined ? {} : { expirationMs: onward.waitMs }) };
}

/** The headers of a message of its own: the hand-off's, and what it waits for. */
export function singleMessageHeaders({ headers, waitingFor }: HandOff): Record<string, unknown> {
  if (!waitingFor) return headers;
  const unread = waitingFor.unread > 0 ? { [WAITED_UNREAD_HEADER]: waitingFor.unread } : {};
  return { ...headers, [WAITING_FOR_ENDPOINT_HEADER]: waitingFor.endpointId, [WAITING_FOR_HOST_HEADER]: waitingFor.host, ...unread };
}

/**
 * Where an attempt this worker turned away goes, with the headers it carries there: the attempt
 * number, the manual flag and whether it was given before (the broker's own flag does not travel
 * with a message sent anew; without it, an attempt recorded by a copy that then failed would
 * never have its retry queued). At shutdown, straight back to the deliver queue for another
 * worker, its throttle count as it came (the endpoint's state here calls for no wait). Otherwise a
 * throttle queue, by the ladder (throttleFor).
 */
export function handOff(
  queues: WebhookQueueNames,
  incoming: Record<string, unknown> | undefined,
  attempt: { number: number; manual: boolean; givenBefore: boolean },
  how: { shuttingDown: true } | { climb: boolean; toTop?: boolean; paced?: number },
): HandOff {
  const headers = {
    [ATTEMPT_HEADER]: attempt.number,
    ...(attempt.manual ? { [MANUAL_HEADER]: true } : {}),
    ...(attempt.givenBefore ? { [GIVEN_BEFORE_HEADER]: true } : {}),
  };
  const seen = incoming?.[THROTTLED_HEADER];
  if ('shuttingDown' in how) return { queue: queues.deliver, headers: { ...headers, ...(seen === undefined ? {} : { [THROTTLED_HEADER]: seen }) } };
  // To the top rung at once: an attempt past its tenant's share of a slow host, whose backlog goes no faster.
  const { queue, throttled } = throttleFor(queues, how.climb, how.toTop ? queues.throttles.length : seen);
  // A paced wait (pacedRung) is no climb: its count starts again, as on the first rung.
  if (!how.climb && how.paced) return { queue: queues.throttles[Math.min(how.paced, queues.throttles.length - 1)]!.queue, headers: { ...headers, [THROTTLED_HEADER]: 0 } };
  return { queue, headers: { ...headers, [THROTTLED_HEADER]: throttled } };
}

/**
 * The part of a busy host's refused backlog that keeps the first rung's wait, counted in seconds
 * of the host's places: enough to keep them all taken, though returns come and go in bursts.
 * Seconds of returns a second only with the first rung at 1 s, as in production.
 */
export const PACED_RETURN_SECONDS = 5;

/**
 * The rung an attempt refused at its busy host waits on, while the host answers well. The first,
 * while the attempts refused there lately (`refusedSeconds`, in seconds of the host's places) are
 * at most PACED_RETURN_SECONDS. Past that, the first only by chance, so that PACED_RETURN_SECONDS
 * of them keeps the first rung; the rest wait the second rung, or any longer one alike past the
 * longest wait's worth. The host stays busy, and its backlog goes round the broker a few times
 * instead of once a second until its turn. Drawn at random, not by the first ones each second:
 * those would leave the host idle between the longer waits' returns.
 */
export function pacedRung(queues: WebhookQueueNames, refusedSeconds: number | undefined, random: () => number): number {
  const top = queues.throttles.length - 1;
  if (refusedSeconds === undefined || top === 0 || refusedSeconds <= PACED_RETURN_SECONDS || random() < PACED_RETURN_SECONDS / refusedSeconds) return 0;
  return refusedSeconds < queues.throttles[top]!.delay / 1000 ? 1 : 1 + Math.floor(random() * top);
}

/** The attempt number a message's header gives; only a message made by hand could carry another, and it is rejected. */
function attemptNumberOf(raw: ConsumeMessage): number {
  const number = Number(raw.properties.headers?.[ATTEMPT_HEADER] ?? 1);
  if (!Number.isSafeInteger(number) || number < 1) throw new PermanentFailure(`${ATTEMPT_HEADER} is not an attempt number`);
  return number;
}

/** The attempt a message carries: its number, whether by hand, and whether it was given before. */
function attemptOf(raw: ConsumeMessage): { number: number; manual: boolean; givenBefore: boolean } {
  return {
    number: attemptNumberOf(raw),
    manual: raw.properties.headers?.[MANUAL_HEADER] === true,
    givenBefore: raw.fields.redelivered || raw.properties.headers?.[GIVEN_BEFORE_HEADER] === true,
  };
}

/** Members of a group taken at once. */
const GROUP_TURN = 32;

/** Deliveries bound for one group queue with the same headers: one group message, each named once. */
interface Gathered {
  queue: string;
  headers: Record<string, unknown>;
  ids: Set<string>;
}

const gatheredKey = (queue: string, headers: Record<string, unknown>) => `${queue}\n${JSON.stringify(headers)}`;

/** Deliveries gathered by queue and headers, under gatheredKey. */
function gather(members: Iterable<{ queue: string; id: string; headers: Record<string, unknown> }>): Map<string, Gathered> {
  const together = new Map<string, Gathered>();
  for (const { queue, id, headers } of members) {
    const key = gatheredKey(queue, headers);
    const gathered = together.get(key) ?? { queue, headers, ids: new Set<string>() };
    gathered.ids.add(id);
    together.set(key, gathered);
  }
  return together;
}

/**
 * Consumes the deliver queue: retries (back from their TTL queues), redeliveries by hand, and
 * first attempts that a domain event's handler did not make itself (see FanOut). Each message
 * names a delivery, or a group of them, and an attempt number; each attempt is made once.
 */
export function consumeDeliveries(options: DeliverOptions): { singles: Consumer; groups: Consumer } {
  const { store, queues, attempts } = options;
  const throttleRates = new ThrottleRates();
  const climbAfterPerSecond = options.climbAfterPerSecond ?? 100;
  const random = options.random ?? Math.random;
  const topRung = queues.throttles.at(-1)!.queue;

  /**
   * Single messages bound for the top rung, sent as groups of those turned away at the same
   * moment. A backlog that came back one by one, such as a slow host's, then waits as a few
   * messages and comes back together. One by one, hundreds came back at once every time, and
   * each went round the broker and the database again.
   */
  const topRungGroups = statementBatches(
    async (members: ReadonlyArray<{ id: string; headers: Record<string, unknown> }>) => {
      const queue = queues.throttleGroups.queue;
      // Two copies of one message are one member. A failure is kept by headers and id: a delivery
      // whose group went is not failed by another copy's group.
      const failed = new Map<string, Error>();
      await Promise.all(
        [...gather(members.map((member) => ({ queue, ...member })))].flatMap(([key, { headers, ids }]) =>
          deliveryGroupsOf([...ids]).map((group) =>
            options.publisher.sendToQueue(queue, group, { headers }).catch((error: unknown) => {
              for (const id of group.delivery_ids) failed.set(`${key}\n${id}`, error instanceof Error ? error : new Error(String(error)));
            }),
          ),
        ),
      );
      return members.map(({ id, headers }) => failed.get(`${gatheredKey(queue, headers)}\n${id}`));
    },
    { maxBatchSize: DELIVERY_GROUP_LIMIT },
  );

  /** Attempts one delivery the message names; answers where it goes to wait instead, if it does. */
  async function take(deliveryId: string, raw: ConsumeMessage): Promise<HandOff | undefined> {
    const attempt = attemptOf(raw);
    const { number, manual, givenBefore } = attempt;
    // Back from waiting for a host that still has no room: it waits again, its delivery unread,
    // a few times in a row at most. A backlog going round a busy host then costs the broker, not
    // the database. It climbs as one turned away for its host's share after its read does: to the
    // longest wait at once while its endpoint struggles or its host is slow.
    const waitedFor = unreadHintOf(raw.properties.headers);
    if (waitedFor && attempts.hostRefusesAtOnce(waitedFor.host)) {
      options.metrics.throttledUnread.inc();
      const beyondShareOfSlowHost = attempts.isSlowAt(waitedFor.endpointId, waitedFor.host);
      const waitingFor = { ...waitedFor, unread: waitedFor.unread + 1 };
      return turnAway(raw, attempt, waitedFor.endpointId, waitingFor, { beyondShareOfSlowHost, refusedAtHost: true });
    }
    let delivery = await store.load(deliveryId);
    // Gone: its endpoint was deleted, or its history outlived DELIVERY_HISTORY_RETENTION_DAYS.
    if (!delivery) return undefined;
    if (delivery.attempts >= number) {
      // This attempt is already recorded: a duplicate, with nothing to do, unless this message
      // was given before.
      if (givenBefore) await attempts.followUpAgain(delivery, number);
      return undefined;
    }
    if (delivery.status === 'withheld') return undefined;
    // An ended `listen` session takes nothing more: its delivery stops, as for a dropped event.
    if (delivery.ended) {
      await store.cancel(delivery.id, number);
      return undefined;
    }
    // A paused endpoint's automatic attempts are held, not made; a Send test's ping still goes,
    // so a team can check its receiver before resuming, and so does a redelivery by hand.
    if (delivery.paused && !manual && delivery.eventType !== 'webhook.ping') {
      if (await store.hold(delivery.id, number)) options.logger.info('delivery held: its endpoint is paused', { deliveryId: delivery.id, attempt: number });
      return undefined;
    }
    if (manual) {
      // Queued in the transaction that marks the delivery pending, so it can arrive before that
      // commits, or after it rolled back (the member was told it failed): it goes only once committed.
      if (!(await store.redeliveryCommitted(delivery.id, number))) {
        options.logger.info('redelivery by hand dropped: not committed, or made already', { deliveryId: delivery.id, attempt: number });
        return undefined;
      }
      // Read again: what was read above came before the redelivery committed, and a rotation, a
      // URL change, an erasure or the endpoint's deletion may have committed while this waited.
      const committed = await store.load(delivery.id);
      if (!committed || committed.status === 'withheld') return undefined;
      delivery = committed;
    } else {
      // Settled: no more automatic attempts. One that finds the delivery pending after attempts
      // were made is a stale retry (queued by a duplicate copy of an attempt that was then
      // outweighed by a 2xx): a redelivery by hand is the one due.
      if (!automaticAttemptDue(delivery, number)) return undefined;
    }
    if (await attempts.make(delivery, number, { manual, redelivered: givenBefore })) {
      if (manual) options.onManualAttempt?.();
      return undefined;
    }
    return turnAway(raw, attempt, delivery.endpointId, waitingForOf(delivery), {
      beyondShareOfSlowHost: attempts.wasBeyondShareOfSlowHost(delivery),
      refusedAtHost: attempts.wasRefusedAtHost(delivery),
    });
  }

  /**
   * Where an attempt `make` turned away goes. Its endpoint has enough in flight here, or its host
   * or team, and is too slow (or struggling) for a short wait: the message waits in a throttle
   * queue, without an attempt, instead of holding a slot other endpoints' deliveries need. While
   * the endpoint fails, or struggles behind a backlog far larger than its 2 slots take, each time
   * the message comes back to find no slot it waits longer (the throttle ladder), so that such a
   * backlog does not go round the broker and the database once a second for hours. Otherwise the
   * shortest wait, so a backlog goes at the endpoint's pace: a healthy endpoint's returns, spread
   * over the second, refill its line. Past its tenant's share of a slow host, the longest at once;
   * behind a long backlog at a busy host that answers well, paced (pacedRung).
   */
  function turnAway(
    raw: ConsumeMessage,
    attempt: ReturnType<typeof attemptOf>,
    endpointId: string,
    waitingFor: WaitingFor | undefined,
    { beyondShareOfSlowHost, refusedAtHost }: { beyondShareOfSlowHost: boolean; refusedAtHost: boolean },
  ): HandOff {
    const incoming = raw.properties.headers;
    if (attempts.stopped) return handOff(queues, incoming, attempt, { shuttingDown: true });
    const backlog = throttleRates.note(endpointId);
    const climb = beyondShareOfSlowHost || attempts.isFailing(endpointId) || (attempts.isStruggling(endpointId) && backlog > climbAfterPerSecond);
    // A redelivery by hand is a member's request, made now or at the first wait's return.
    const paced = !climb && refusedAtHost && waitingFor && !attempt.manual ? pacedRung(queues, attempts.hostRefusedSeconds(waitingFor.host), random) : 0;
    options.metrics.throttled.inc();
    const onward = { ...handOff(queues, incoming, attempt, { climb, toTop: beyondShareOfSlowHost, paced }), ...(waitingFor ? { waitingFor } : {}) };
    return spacedOnFirstRung(queues, onward, { climb, refusedAtHost }, (host, longestMs) => attempts.bookHostReturn(host, longestMs));
  }

  /**
   * Takes each delivery of a group. Those that wait again on the top rung, or go back at shutdown,
   * go on together; any other goes on alone, as a message of the single queues. When every member
   * fails (the database away), the group goes back to its queue after the consumer's pause. When
   * some fail, those go on alone, given before, and the others' attempts are not made again.
   */
  async function attemptGroup(group: DeliveryGroup, raw: ConsumeMessage): Promise<void> {
    attemptNumberOf(raw);
    const ids = group.delivery_ids;
    // A few members at a time, giving way between them: a group of 500 is then neither one long
    // turn of the event loop nor one 500-row read, which other teams' attempts would wait behind.
    const outcomes: Array<PromiseSettledResult<HandOff | undefined>> = [];
    for (let start = 0; start < ids.length; start += GROUP_TURN) {
      if (start > 0) await nextTurn();
      outcomes.push(...(await Promise.allSettled(ids.slice(start, start + GROUP_TURN).map((id) => take(id, raw)))));
    }
    const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
    if (failures.length === ids.length) throw failures[0]!.reason;
    const grouped: Array<{ queue: string; id: string; headers: Record<string, unknown> }> = [];
    const sends: Array<() => Promise<void>> = [];
    outcomes.forEach((outcome, n) => {
      const id = ids[n]!;
      let onward: HandOff | undefined;
      if (outcome.status === 'rejected') {
        options.logger.warn('attempt of a group failed midway; handed to the deliver queue', { deliveryId: id, error: outcome.reason });
        onward = handOff(queues, raw.properties.headers, { ...attemptOf(raw), givenBefore: true }, { shuttingDown: true });
      } else {
        onward = outcome.value;
      }
      if (!onward) return;
      // A spaced return goes alone: a group would wait the rung's whole wait.
      const groupQueue = outcome.status === 'fulfilled' && onward.waitMs === undefined ? groupQueueFor(onward.queue) : undefined;
      if (groupQueue === undefined) {
        const { queue } = onward;
        const sendOptions = singleMessageOptions(onward, id);
        sends.push(() => options.publisher.sendToQueue(queue, { delivery_id: id }, sendOptions));
        return;
      }
      grouped.push({ queue: groupQueue, id, headers: onward.headers });
    });
    for (const { queue, headers, ids: members } of gather(grouped).values()) {
      for (const next of deliveryGroupsOf([...members])) sends.push(() => options.publisher.sendToQueue(queue, next, { headers }));
    }
    // A send that failed sends the group back: members already sent may then go twice, which the
    // attempt count makes harmless.
    const sent = await Promise.allSettled(sends.map((send) => send()));
    const unsent = sent.find((result) => result.status === 'rejected');
    if (unsent) throw unsent.reason;
  }

  /** The group queue that stands for single queue `queue`, if any: the top rung, and the deliver queue. */
  function groupQueueFor(queue: string): string | undefined {
    if (queue === queues.throttles.at(-1)!.queue) return queues.throttleGroups.queue;
    if (queue === queues.deliver) return queues.deliverGroups;
    return undefined;
  }

  return {
    singles: startConsumer(options.broker, options.logger, {
      queue: queues.deliver,
      metrics: options.metrics.registry,
      setup: (channel) => declareWebhookTopology(channel, queues),
      prefetch: options.prefetch ?? 64,
      contract: deliveryMessageContract,
      handle: async (message, raw) => {
        const onward = await take(message.delivery_id, raw);
        if (!onward) return;
        // Only one that climbed there: with a single throttle delay, the top rung is the first too.
        const climbedToTop = onward.queue === topRung && Number(onward.headers[THROTTLED_HEADER]) >= queues.throttles.length;
        if (climbedToTop) await topRungGroups.load({ id: message.delivery_id, headers: onward.headers });
        else await options.publisher.sendToQueue(onward.queue, message, singleMessageOptions(onward, message.delivery_id));
      },
    }),
    // A group holds up to DELIVERY_GROUP_LIMIT attempts: a few at a time are plenty.
    groups: startConsumer(options.broker, options.logger, {
      queue: queues.deliverGroups,
      metrics: options.metrics.registry,
      setup: (channel) => declareWebhookTopology(channel, queues),
      prefetch: 4,
      contract: deliveryGroupContract,
      handle: attemptGroup,
    }),
  };
}
