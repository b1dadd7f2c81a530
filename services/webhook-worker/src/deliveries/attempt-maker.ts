// Over 300 lines on purpose: one attempt, from its slot to what follows it, reads best in one place.
// Its slots, opened secrets, target and record live in files of their own.
import type { KeyObject } from 'node:crypto';
import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import type { Logger } from '@feedback/logging';
import { ATTEMPT_HEADER } from '../queues/webhook-topology.js';
import type { ConfirmedPublisher } from '@feedback/messaging';
import type { WebhookQueueNames } from '../queues/webhook-topology.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign } from '@feedback/webhook-signature';
import type { SecretBox } from '../endpoints/signing-secrets.js';
import { requestHeadersOf } from '../outbound/webhook-sender.js';
import type { WebhookSender } from '../outbound/webhook-sender.js';
import type { AttemptStore } from './attempt-store.js';
import { automaticAttemptDue } from './attempt-target.js';
import type { AttemptTarget, DeliveryNow } from './attempt-target.js';
import { hostOf } from './fair-share.js';
import type { EndpointTeams, FairShare, FairShareRefusal } from './fair-share.js';
import { EndpointSlots } from './endpoint-slots.js';
import { OpenedSecrets } from './opened-secrets.js';
import type { AttemptSlots, WebhookMetrics } from './webhook-metrics.js';

/**
 * An attempt that waited longer than this for its tenant's share reads its delivery again before
 * it is sent. A shorter wait adds little to the moments between any attempt's read and its send
 * under load. A read after each short wait would also hold the host's place longer, so the next
 * attempts would wait longer, and read again too. A read made ahead, while the attempt was next
 * in line, serves if it began at most this long before the attempt's turn.
 */
const REREAD_AFTER_SHARE_WAIT_MS = 50;

export interface AttemptMakerOptions {
  store: AttemptStore;
  publisher: ConfirmedPublisher;
  sender: Pick<WebhookSender, 'send'>;
  secrets: SecretBox;
  queues: WebhookQueueNames;
  logger: Logger;
  metrics: WebhookMetrics;
  /** Attempts this worker makes at once, from both paths; more wait their turn. Default: 64. */
  concurrency?: number;
  /** Attempts one endpoint may take at once in one worker, so a slow endpoint holds back no other. Default: 8. */
  perEndpointConcurrency?: number;
  /** An attempt that fails or takes longer than this marks its endpoint as struggling. Default: 1000. */
  struggleAfterMs?: number;
  /**
   * How long an attempt may expect to wait here for a slot of its healthy endpoint, judged by the
   * endpoint's recent answers, before it goes elsewhere instead (the deliver queue, or a
   * throttle queue, where it waits a second or more). Default: 250.
   */
  shortWaitMs?: number;
  /** Each tenant's share of this worker, by destination host and team (fair-share.ts). Default: none kept. */
  fairShare?: { share: FairShare; teams: EndpointTeams };
}

export interface MakeOptions {
  /** A redelivery by hand: one attempt, outside the automatic schedule. */
  manual: boolean;
  /** The message that brought it was given before (its first taker lost it midway). */
  redelivered: boolean;
  /** A first attempt from a domain event's handler: a struggling endpoint's goes elsewhere at once. */
  fromEvent?: boolean;
}

export type DeliveryStatus = 'delivered' | 'retrying' | 'abandoned';

/**
 * Makes attempts, from whichever path brings them (a domain event's first attempts, or the
 * deliver queue): attempt n is signed afresh and sent; 2xx is delivered; anything else (another
 * status, a redirect, a connection error, a timeout) fails it. The attempt and the delivery's new
 * state are recorded, then what follows is published and confirmed before the caller acknowledges
 * its message: the next retry queue after a failure with retries left, the abandoned queue after
 * the last.
 *
 * Each attempt first takes a slot of its endpoint (`EndpointSlots`), then one of the worker's.
 */
export class AttemptMaker {
  private readonly endpoints: EndpointSlots;
  private readonly maxAttempts: number;
  private readonly limit: LimitFunction;
  private readonly openedSecrets: OpenedSecrets;
  /** Attempts turned away last because their tenant had had its share (fair-share.ts), and which share. */
  private readonly beyondShare = new WeakMap<AttemptTarget, FairShareRefusal>();

  constructor(private readonly options: AttemptMakerOptions) {
    const concurrency = options.concurrency ?? 64;
    this.limit = pLimit(concurrency);
    this.endpoints = new EndpointSlots({
      concurrency,
      perEndpoint: options.perEndpointConcurrency ?? 8,
      struggleAfterMs: options.struggleAfterMs ?? 1000,
      shortWaitMs: options.shortWaitMs ?? 250,
    });
    this.maxAttempts = 1 + options.queues.retries.length;
    this.openedSecrets = new OpenedSecrets(options.secrets);
  }

  /**
   * For shutdown: from now on only the requests already sent are finished. Every attempt not yet
   * begun, waiting for a slot of its endpoint or of the worker, resolves false, as one with no
   * slot does, and its caller hands the delivery to the queue for another worker. Otherwise a
   * worker holding a few hundred attempts (its events' first attempts, to each endpoint) while
   * receivers are slow would send them in rounds of its concurrency, each up to the request's
   * time limit, past its shutdown grace, and be cut off with attempts sent but not recorded,
   * which other workers then send again.
   */
  stop(): void {
    this.endpoints.stop();
    this.options.fairShare?.share.stop();
  }

  /** Whether stop() was called: an attempt turned away now is not for want of a slot. */
  get stopped(): boolean {
    return this.endpoints.stopped;
  }

  /**
   * Whether this endpoint's latest attempt here failed (another status, a connection error, a
   * timeout): an attempt for it that finds no slot may as well wait longer, since the one it
   * would make now would most likely fail and wait for its retry minutes.
   */
  isFailing(endpointId: string): boolean {
    return this.endpoints.isFailing(endpointId);
  }

  /**
   * Whether `make` turned this attempt away for its tenant's share (its host at its cap, its team
   * at its share or rate) while its host or endpoint answers slowly or fails: it may as well wait
   * longer, since its share is taken by a backlog like it that goes no faster.
   */
  wasBeyondShareOfSlowHost(delivery: AttemptTarget): boolean {
    return this.beyondShare.has(delivery) && this.isSlowAt(delivery.endpointId, hostOf(delivery.url));
  }

  /**
   * Whether this endpoint struggles here, or its host, a destination as hostOf names it, answered
   * its latest attempt here slowly or not at all: a backlog there goes no faster for waiting less.
   */
  isSlowAt(endpointId: string, host: string): boolean {
    return this.isStruggling(endpointId) || this.options.fairShare?.share.isSlowHost(host) === true;
  }

  /**
   * Whether a first attempt may skip `make` and wait the longest at once: its host is slow and has
   * its share in flight. A crowd of endpoints at such a host then costs the worker little.
   */
  hostFullAndSlow(delivery: AttemptTarget): boolean {
    return !this.stopped && this.options.fairShare?.share.isFullAndSlow(delivery.url) === true;
  }

  /**
   * Whether an attempt at this host, a destination as hostOf names it, would be turned away now
   * for its host's share, whatever its endpoint and team, with no short wait. It needs no read of
   * the delivery: an attempt that waited for its host carries its host (deliver.ts).
   */
  hostRefusesAtOnce(host: string): boolean {
    return !this.stopped && this.options.fairShare?.share.refusesAtOnce(host) === true;
  }

  /** Whether `make` turned this attempt away for its host's cap, rather than its team's share or rate. */
  wasRefusedAtHost(delivery: AttemptTarget): boolean {
    return this.beyondShare.get(delivery) === 'host';
  }

  /** The attempts refused at this host in about the last second, in seconds of its places here (FairShare.refusedSeconds). */
  hostRefusedSeconds(host: string): number | undefined {
    return this.options.fairShare?.share.refusedSeconds(host);
  }

  /** Books the return of an attempt refused at its busy host: how long it waits on the first rung, at most `longestMs` (FairShare.bookReturn). */
  bookHostReturn(host: string, longestMs: number): number | undefined {
    return this.options.fairShare?.share.bookReturn(host, longestMs);
  }

  /**
   * For an attempt at a slow host: how many more it may have in flight here now. Undefined when
   * its host is not slow, or no share is kept.
   */
  slowHostPlacesLeft(delivery: AttemptTarget): number | undefined {
    const share = this.options.fairShare?.share;
    return share?.isSlow(delivery.url) ? share.placesLeft(delivery.url) : undefined;
  }

  /** Whether this endpoint's latest attempt here failed or took longer than `struggleAfterMs`. */
  isStruggling(endpointId: string): boolean {
    return this.endpoints.isStruggling(endpointId);
  }

  /**
   * Attempts being made now; waiting for one of the worker's slots (more workers would help); and
   * waiting for one of their endpoint's (a burst to one endpoint: more workers would only send it
   * faster to that receiver). For metrics.
   */
  get slots(): AttemptSlots {
    return { active: this.limit.activeCount, waitingForWorker: this.limit.pendingCount, waitingForEndpoint: this.endpoints.waiting };
  }

  /**
   * Makes attempt `number` of a delivery, when its endpoint has a slot for it now or soon
   * (`EndpointSlots.admit`). Resolves false, having done nothing, when the caller should send it
   * elsewhere. Otherwise resolves true once the attempt is recorded and what follows it is
   * confirmed by the broker. A redelivery by hand (`manual`) is one attempt; the automatic
   * schedule allows 1 + retries.
   */
  async make(delivery: AttemptTarget, number: number, { manual, redelivered, fromEvent = false }: MakeOptions): Promise<boolean> {
    const { store, logger, metrics } = this.options;
    const teamId = await this.options.fairShare?.teams.of(delivery.endpointId);
    // Only a struggling endpoint's attempt admitted at once counts in strugglingBusy (one never waits).
    const countedStruggling = this.endpoints.isStruggling(delivery.endpointId);
    const admission = this.endpoints.admit(delivery.endpointId, fromEvent);
    if (admission === 'elsewhere') return false;
    if (admission === 'wait' && !(await this.endpoints.waitForSlot(delivery.endpointId))) return false;
    // Its tenant's share of the worker, by host and team: past it, the attempt waits briefly, or
    // goes round a throttle queue.
    // Told it is next in line for its host, a waiting attempt reads its delivery again while the
    // places ahead of it come back, so its own, once given, is not held idle for the read.
    let readAhead: { read: Promise<DeliveryNow | undefined>; startedAt: number } | undefined;
    const next = () => {
      readAhead = { read: store.now(delivery.id), startedAt: performance.now() };
      // Awaited only if it serves; a failure then fails the attempt, as a read after the wait would.
      readAhead.read.catch(() => undefined);
    };
    const acquired = teamId === undefined ? undefined : await this.options.fairShare!.share.acquire(teamId, delivery.url, next);
    if (acquired && 'refused' in acquired) {
      this.endpoints.release(delivery.endpointId, countedStruggling);
      this.beyondShare.set(delivery, acquired.refused);
      return false;
    }
    const place = acquired?.place;
    // Fields every line of this attempt carries; a plain object, not a child logger, which would
    // cost more than the attempt's own bookkeeping when the level drops the line anyway.
    const about = { deliveryId: delivery.id, endpointId: delivery.endpointId, attempt: number };
    // The endpoint's slot is its share of requests in flight: it is given up once the exchange is
    // over, so the next attempt waiting for it goes while this one is recorded.
    let slotHeld = true;
    const giveUpSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      place?.();
      this.endpoints.release(delivery.endpointId, countedStruggling);
    };
    try {
      // A slot free now is taken at once (p-limit starts it before returning), so the delivery
      // and its endpoint were read just before; an attempt that waited (for its endpoint, the
      // worker, or its share past a few milliseconds) reads them again when its turn comes, so that a rotation, a new URL, a deletion or an erasure meanwhile
      // holds for it too. Either way, one that names an erased user is withheld, never sent.
      const waits = admission === 'wait' || (acquired?.waitedMs ?? 0) > REREAD_AFTER_SHARE_WAIT_MS || this.limit.activeCount >= this.limit.concurrency;
      const made = await this.limit(async () => {
        if (this.endpoints.stopped) return 'stopping' as const;
        const freshAhead = readAhead && performance.now() - readAhead.startedAt <= REREAD_AFTER_SHARE_WAIT_MS ? readAhead.read : undefined;
        const current = waits ? await (freshAhead ?? store.now(delivery.id)) : delivery;
        if (current === undefined) return 'gone' as const;
        if (current.namesErasedUser || current.status === 'withheld') return 'withheld' as const;
        // Read again after a wait: another copy of this attempt may have settled it, or a
        // redelivery by hand made it pending again, the member's; an automatic attempt no longer
        // due is not made.
        if (!manual && !automaticAttemptDue(current, number)) return { notDue: current } as const;
        // An endpoint receives only the events it selects: a retry of one it has dropped since is
        // not sent. A redelivery by hand is a member's explicit request, and goes.
        if (!current.selected && !manual) return 'cancelled' as const;
        // A secret no configured key opens (a key changed without the old one kept): nothing is
        // sent, and the attempt waits on the throttle ladder, as for an endpoint that fails,
        // rather than go straight back to its queue and hold a slot of it, again and again.
        let key: KeyObject;
        try {
          key = this.openedSecrets.open(current.secretEncrypted, delivery.endpointId);
        } catch (error) {
          return { unopenable: error } as const;
        }
        const startedAt = new Date();
        const headers = {
          // Signed afresh at every attempt (the published library's own signer), so a retry hours
          // later still passes a receiver's 300-second check; signed once the attempt has its
          // slot, so the time in the signature is the time it is sent.
          [SIGNATURE_HEADER]: sign(delivery.body, key),
          [EVENT_HEADER]: delivery.eventType,
          [DELIVERY_HEADER]: delivery.id,
        };
        // What was sent, for the history: the URL and headers as they went out.
        const request = { url: current.url, headers: requestHeadersOf(headers) };
        return { startedAt, request, result: await this.options.sender.send(current.url, delivery.body, headers) };
      });
      if (made === 'stopping') return false;
      if (made === 'gone') {
        logger.info('attempt dropped: its endpoint was deleted', about);
        return true;
      }
      // Counted once, by the copy that settled it.
      if (made === 'withheld') {
        if (await store.withhold(delivery.id)) metrics.settled.inc({ status: 'withheld' });
        logger.info('delivery withheld: it names an erased user', about);
        return true;
      }
      if (made === 'cancelled') {
        if (await store.cancel(delivery.id, number)) metrics.settled.inc({ status: 'cancelled' });
        logger.info('delivery cancelled: its endpoint no longer selects this event', about);
        return true;
      }
      if ('notDue' in made && made.notDue) {
        logger.info('attempt dropped: its delivery had moved on while it waited', about);
        // Recorded by another copy, whose worker may have died before queueing what follows
        // (this message was given before): queued again, as for a copy whose record lost.
        if (redelivered) await this.followUpAgain({ ...made.notDue, id: delivery.id }, number);
        return true;
      }
      if ('unopenable' in made) {
        this.endpoints.markStruggling(delivery.endpointId, 'failing');
        metrics.secretUnopenable.inc();
        logger.warn('attempt not made: no configured key opens its endpoint\'s signing secret; it waits', { ...about, error: made.unopenable });
        return false;
      }
      const { startedAt, request, result } = made;
      const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
      const last = manual || number >= this.maxAttempts;
      const status: DeliveryStatus = delivered ? 'delivered' : last ? 'abandoned' : 'retrying';
      // Counted once made, whatever happens to its record or follow-up.
      const outcome = delivered ? 'delivered' : 'failed';
      metrics.attempts.inc({ outcome, kind: manual ? 'manual' : number === 1 ? 'first' : 'retry' });
      metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
      if (delivered && delivery.eventCreatedAt !== undefined) {
        metrics.eventToDelivery.observe((startedAt.getTime() + result.durationMs - Date.parse(delivery.eventCreatedAt)) / 1000);
      }
      this.options.fairShare?.share.noteAnswer(delivery.url, result.durationMs, delivered);
      this.endpoints.noteAnswer(delivery.endpointId, result.durationMs, delivered);
      giveUpSlot();
      const recorded = await store.record({
        deliveryId: delivery.id,
        number,
        startedAt,
        durationMs: result.durationMs,
        responseCode: result.status ?? null,
        error: result.error ?? null,
        responseBodyStart: result.bodyStart ?? null,
        status,
        manual,
        requestUrl: request.url,
        requestHeaders: request.headers,
      });
      if (!recorded) {
        // Another copy of this attempt was recorded first (the broker gave its message twice), or
        // the delivery settled or was withheld meanwhile: what follows is that copy's to queue,
        // unless this message was given before (see followUpAgain).
        logger.info('attempt outcome not recorded: its delivery had moved on', { ...about, status: result.status });
        const now = redelivered ? await store.now(delivery.id) : undefined;
        if (now) await this.followUpAgain({ ...now, id: delivery.id }, number);
        return true;
      }
      // The automatic schedule only: a redelivery by hand is one attempt, counted above.
      if (status !== 'retrying' && !manual) metrics.settled.inc({ status });
      await this.followUp(status, delivery.id, number);
      if (delivered) {
        // Routine, so debug: the delivery's history and the metrics count every one, and a line
        // per delivery at thousands a second would bury the lines that need a reader.
        logger.debug('delivered', { ...about, status: result.status, durationMs: result.durationMs });
      } else if (last) {
        logger.warn(manual ? 'redelivery failed' : 'delivery abandoned after its last retry', { ...about, status: result.status, error: result.error });
      } else {
        const retryInMs = this.options.queues.retries[number - 1]!.delay;
        logger.info('attempt failed; retry scheduled', { ...about, status: result.status, error: result.error, retryInMs });
      }
    } finally {
      giveUpSlot();
    }
    return true;
  }

  /**
   * For a message the broker gave before (its first taker lost its connection, or died), of
   * attempt `number` that the delivery has recorded as its latest: that taker may have recorded
   * the attempt and not yet had what follows confirmed, and this message may be the only one left,
   * so what follows is queued again. A retry is never lost; at worst it is queued twice (delivery
   * is at least once).
   */
  async followUpAgain(delivery: { id: string; status: string; attempts: number }, number: number): Promise<void> {
    if (delivery.attempts === number) await this.followUp(delivery.status, delivery.id, number);
  }

  /**
   * What follows recorded attempt `number`: a failure with retries left goes to the next retry
   * queue; an abandoned delivery is parked for operators.
   */
  private async followUp(status: string, deliveryId: string, number: number): Promise<void> {
    const { publisher, queues } = this.options;
    const message = { delivery_id: deliveryId };
    if (status === 'retrying') {
      const retry = queues.retries[number - 1]!;
      await publisher.sendToQueue(retry.queue, message, { messageId: deliveryId, headers: { [ATTEMPT_HEADER]: number + 1 } });
    } else if (status === 'abandoned') {
      await publisher.sendToQueue(queues.abandoned, message, { messageId: deliveryId, headers: { [ATTEMPT_HEADER]: number } });
    }
  }
}
