import { createSecretKey } from 'node:crypto';
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
import { automaticAttemptDue } from './attempt-store.js';
import type { AttemptStore, AttemptTarget } from './attempt-store.js';
import type { EndpointTeams, FairShare } from './fair-share.js';
import { noteMostRecent } from './recent-notes.js';
import type { WebhookMetrics } from './webhook-metrics.js';

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

/**
 * Attempts one struggling endpoint may take at once in one worker (at most its usual share): enough
 * to notice that it has recovered, few enough that several failing endpoints cannot fill the worker.
 */
const STRUGGLING_PER_ENDPOINT = 2;

/** Unsealed secrets kept per process; past this many, the cache starts again. */
const OPENED_SECRETS_KEPT = 10_000;

export type DeliveryStatus = 'delivered' | 'retrying' | 'abandoned';

/**
 * Makes attempts, from whichever path brings them (a domain event's first attempts, or the
 * deliver queue): attempt n is signed afresh and sent; 2xx is delivered; anything else (another
 * status, a redirect, a connection error, a timeout) fails it. The attempt and the delivery's new
 * state are recorded, then what follows is published and confirmed before the caller acknowledges
 * its message: the next retry queue after a failure with retries left, the abandoned queue after
 * the last.
 *
 * It also keeps, per endpoint in this process, the attempts in flight and whether the endpoint is
 * struggling (its latest attempt failed or was slow), so callers can keep a slow endpoint from
 * taking the slots other endpoints need.
 */
export interface AttemptSlots {
  active: number;
  waitingForWorker: number;
  waitingForEndpoint: number;
}

export class AttemptMaker {
  private readonly busy = new Map<string, number>();
  /** Struggling endpoints: slow (the latest attempt succeeded, slowly) or failing (it failed). */
  private readonly struggling = new Map<string, 'slow' | 'failing'>();
  /** A healthy endpoint's typical attempt duration here, in ms (see markHealthy). */
  private readonly typicalMs = new Map<string, number>();
  /** Attempts waiting for a slot of their (healthy) endpoint, first come first served. */
  private readonly lines = new Map<string, Array<(granted: boolean) => void>>();
  private waitingInLines = 0;
  /** Attempts in flight for endpoints that were struggling when the attempt began. */
  private strugglingBusy = 0;
  /** Most attempts struggling endpoints take together: half the worker, the rest kept for healthy ones. */
  private readonly strugglingShare: number;
  private readonly perEndpoint: number;
  private readonly struggleAfterMs: number;
  private readonly shortWaitMs: number;
  private readonly maxAttempts: number;
  private readonly limit: LimitFunction;
  private readonly openedSecrets = new Map<string, KeyObject>();
  /** Attempts turned away last because their tenant had had its share (fair-share.ts). */
  private readonly beyondShare = new WeakSet<AttemptTarget>();
  private stopping = false;

  constructor(private readonly options: AttemptMakerOptions) {
    const concurrency = options.concurrency ?? 64;
    this.limit = pLimit(concurrency);
    this.strugglingShare = Math.max(1, Math.floor(concurrency / 2));
    this.perEndpoint = options.perEndpointConcurrency ?? 8;
    this.struggleAfterMs = options.struggleAfterMs ?? 1000;
    this.shortWaitMs = options.shortWaitMs ?? 250;
    this.maxAttempts = 1 + options.queues.retries.length;
  }

  /**
   * Whether an attempt for this endpoint may start now (counted at once, before any await, so the
   * next caller's answer agrees), wait here for one of its endpoint's slots, or go elsewhere.
   *
   * A healthy endpoint has `perEndpointConcurrency` slots, and an attempt waits for one when the
   * endpoint's recent answers say the wait will be short: a burst to a fast receiver is sent
   * from here, at its pace, rather than sent round the throttle queue a second at a time. A
   * struggling endpoint (its latest attempt failed or was slow) gets fewer slots, never a wait,
   * and struggling endpoints together at most half the worker, so that however many customers'
   * endpoints fail or stall, healthy ones keep theirs.
   */
  private admit(endpointId: string, fromEvent: boolean): 'now' | 'wait' | 'elsewhere' {
    if (this.stopping) return 'elsewhere';
    const busy = this.busy.get(endpointId) ?? 0;
    if (this.struggling.has(endpointId)) {
      if (fromEvent || busy >= Math.min(this.perEndpoint, STRUGGLING_PER_ENDPOINT) || this.strugglingBusy >= this.strugglingShare) return 'elsewhere';
      this.busy.set(endpointId, busy + 1);
      this.strugglingBusy += 1;
      return 'now';
    }
    if (busy < this.perEndpoint) {
      this.busy.set(endpointId, busy + 1);
      return 'now';
    }
    const waiting = this.lines.get(endpointId)?.length ?? 0;
    // Unknown (nothing answered here yet): one round of waiting, no more.
    const typicalMs = this.typicalMs.get(endpointId) ?? this.shortWaitMs;
    const expectedWaitMs = Math.ceil((waiting + 1) / this.perEndpoint) * typicalMs;
    return waiting < this.limit.concurrency && expectedWaitMs <= this.shortWaitMs ? 'wait' : 'elsewhere';
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
    this.stopping = true;
    for (const endpointId of [...this.lines.keys()]) this.turnAwayLine(endpointId);
  }

  /** Whether stop() was called: an attempt turned away now is not for want of a slot. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Resolves true once a slot of this endpoint is handed over, false if it starts struggling first. */
  private waitForSlot(endpointId: string): Promise<boolean> {
    return new Promise((resolve) => {
      const line = this.lines.get(endpointId);
      if (line) line.push(resolve);
      else this.lines.set(endpointId, [resolve]);
      this.waitingInLines += 1;
    });
  }

  /** A finished attempt's slot: handed to the next in its endpoint's line, if any, else freed. */
  private release(endpointId: string, countedStruggling: boolean): void {
    if (countedStruggling) this.strugglingBusy -= 1;
    const line = this.lines.get(endpointId);
    if (line && !this.struggling.has(endpointId)) {
      const next = line.shift()!;
      if (line.length === 0) this.lines.delete(endpointId);
      this.waitingInLines -= 1;
      next(true);
      return;
    }
    const left = (this.busy.get(endpointId) ?? 1) - 1;
    // Only endpoints with attempts in flight are kept: a worker runs for days over many endpoints.
    if (left > 0) this.busy.set(endpointId, left);
    else this.busy.delete(endpointId);
  }

  /**
   * Whether this endpoint's latest attempt here failed (another status, a connection error, a
   * timeout): an attempt for it that finds no slot may as well wait longer, since the one it
   * would make now would most likely fail and wait for its retry minutes.
   */
  isFailing(endpointId: string): boolean {
    return this.struggling.get(endpointId) === 'failing';
  }

  /**
   * Whether `make` turned this attempt away for its tenant's share (its host at its cap, its team
   * at its share or rate) while its host or endpoint answers slowly or fails: it may as well wait
   * longer, since its share is taken by a backlog like it that goes no faster.
   */
  wasBeyondShareOfSlowHost(delivery: AttemptTarget): boolean {
    const slow = this.isStruggling(delivery.endpointId) || this.options.fairShare?.share.isSlow(delivery.url) === true;
    return this.beyondShare.has(delivery) && slow;
  }

  /** Whether this endpoint's latest attempt here failed or took longer than `struggleAfterMs`. */
  isStruggling(endpointId: string): boolean {
    return this.struggling.has(endpointId);
  }

  /**
   * Attempts being made now; waiting for one of the worker's slots (more workers would help); and
   * waiting for one of their endpoint's (a burst to one endpoint: more workers would only send it
   * faster to that receiver). For metrics.
   */
  get slots(): AttemptSlots {
    return { active: this.limit.activeCount, waitingForWorker: this.limit.pendingCount, waitingForEndpoint: this.waitingInLines };
  }

  /**
   * Makes attempt `number` of a delivery, when its endpoint has a slot for it now or soon (see
   * admit); resolves false, having done nothing, when the caller should send it elsewhere. A
   * redelivery by hand (`manual`) is one attempt; the automatic schedule allows 1 + retries.
   * Otherwise resolves true once the attempt is recorded and what follows it is confirmed by the
   * broker.
   */
  async make(delivery: AttemptTarget, number: number, { manual, redelivered, fromEvent = false }: MakeOptions): Promise<boolean> {
    const { store, logger, metrics } = this.options;
    const teamId = await this.options.fairShare?.teams.of(delivery.endpointId);
    // Only a struggling endpoint's attempt admitted at once counts in strugglingBusy (one never waits).
    const countedStruggling = this.struggling.has(delivery.endpointId);
    const admission = this.admit(delivery.endpointId, fromEvent);
    if (admission === 'elsewhere') return false;
    if (admission === 'wait' && !(await this.waitForSlot(delivery.endpointId))) return false;
    // Its tenant's share of the worker, by host and team: past it, the attempt goes round a throttle queue.
    const place = teamId === undefined ? undefined : this.options.fairShare!.share.take(teamId, delivery.url);
    if (typeof place === 'string') {
      this.release(delivery.endpointId, countedStruggling);
      this.beyondShare.add(delivery);
      return false;
    }
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
      this.release(delivery.endpointId, countedStruggling);
    };
    try {
      // A slot free now is taken at once (p-limit starts it before returning), so the delivery
      // and its endpoint were read just before; an attempt that waits for one reads them again
      // when its turn comes, so that a rotation, a new URL, a deletion or an erasure meanwhile
      // holds for it too. Either way, one that names an erased user is withheld, never sent.
      const waits = admission === 'wait' || this.limit.activeCount >= this.limit.concurrency;
      const made = await this.limit(async () => {
        if (this.stopping) return 'stopping' as const;
        const current = waits ? await store.now(delivery.id) : delivery;
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
          key = this.openSecret(current.secretEncrypted, delivery.endpointId);
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
        this.markStruggling(delivery.endpointId, 'failing');
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
      if (delivered && result.durationMs <= this.struggleAfterMs) this.markHealthy(delivery.endpointId, result.durationMs);
      else this.markStruggling(delivery.endpointId, delivered ? 'slow' : 'failing');
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
   * Notes an endpoint as struggling, most recent last (see noteMostRecent). Attempts waiting for
   * its slots go elsewhere now, rather than wait on a slow receiver.
   */
  private markStruggling(endpointId: string, how: 'slow' | 'failing'): void {
    this.typicalMs.delete(endpointId);
    noteMostRecent(this.struggling, endpointId, how);
    this.turnAwayLine(endpointId);
  }

  /** The attempts waiting for this endpoint's slots go elsewhere. */
  private turnAwayLine(endpointId: string): void {
    const line = this.lines.get(endpointId);
    if (!line) return;
    this.lines.delete(endpointId);
    this.waitingInLines -= line.length;
    for (const waiter of line) waiter(false);
  }

  /**
   * Notes a good answer: the endpoint is healthy, and its typical answer time moves a fifth of the
   * way towards this one (one slow answer among fast ones does not send a burst round the
   * throttle queue; an endpoint that turns slow for good is struggling from its first answer
   * past `struggleAfterMs`, which ends the waits).
   */
  private markHealthy(endpointId: string, durationMs: number): void {
    this.struggling.delete(endpointId);
    const typical = this.typicalMs.get(endpointId);
    noteMostRecent(this.typicalMs, endpointId, typical === undefined ? durationMs : 0.8 * typical + 0.2 * durationMs);
  }

  /**
   * The endpoint's secret as a signing key, unsealed once per sealed value rather than per
   * attempt. Keyed by the sealed text, which each attempt reads afresh: a rotated secret is a new
   * key, and the previous one is never used again. Kept here, one per endpoint, rather than in
   * the signing library's small cache of string secrets, which many endpoints would churn.
   */
  private openSecret(sealed: string, endpointId: string): KeyObject {
    let key = this.openedSecrets.get(sealed);
    if (key === undefined) {
      if (this.openedSecrets.size >= OPENED_SECRETS_KEPT) this.openedSecrets.clear();
      key = createSecretKey(Buffer.from(this.options.secrets.open(sealed, endpointId), 'utf8'));
      this.openedSecrets.set(sealed, key);
    }
    return key;
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
