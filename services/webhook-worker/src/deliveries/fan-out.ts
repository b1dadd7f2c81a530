import type DataLoader from 'dataloader';
import type pg from 'pg';
import { deliveryGroupsOf } from '@feedback/contracts';
import type { DomainEvent } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher } from '@feedback/messaging';
import { ATTEMPT_HEADER, GIVEN_BEFORE_HEADER } from '../queues/webhook-topology.js';
import type { WebhookQueueNames } from '../queues/webhook-topology.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import type { AttemptMaker } from './attempt-maker.js';
import { ATTEMPT_TARGET_COLUMNS, attemptTargetOf } from './attempt-target.js';
import type { AttemptTarget } from './attempt-target.js';
import { handOff } from './deliver.js';
import { hostOf } from './fair-share.js';
import type { ErasureHashKey } from './erased-users.js';
import { statementBatches } from '@feedback/database';

/** Deliveries of one event started before the worker turns to other work for a moment. */
const YIELD_EVERY = 32;

/** An event whose app's latest of its kind made this many deliveries or more fans out in a lane of its own. */
const LARGE_FAN_OUT = 64;

/** Fan-out sizes kept; past it they are forgotten and learned again. */
const KNOWN_SIZES_MAX = 10_000;

export interface FanOutOptions {
  pool: pg.Pool;
  publisher: ConfirmedPublisher;
  queues: WebhookQueueNames;
  attempts: AttemptMaker;
  metrics: WebhookMetrics;
  logger: Logger;
  /** The key erasures name users with (ERASURE_HASH_KEY), for the erasure check of each delivery. */
  erasureHashKey: ErasureHashKey;
  /** Most events one statement carries. Default: 200; 8 for apps with many endpoints. */
  maxBatchSize?: number;
}

export interface FanOutResult {
  /** False when the broker delivered this event before (its deliveries exist already). */
  first: boolean;
  /** First attempts made or queued. */
  attempted: number;
}

/** The deliveries of one event that concern this handling of it. */
interface EventDeliveries {
  first: boolean;
  deliveries: AttemptTarget[];
}

// In one statement, for a batch of events: note each event once; create one delivery per
// (event, endpoint that selected its name), skipping pairs that exist, with the envelope of
// specification section 2.5 whose `id` is the delivery's own, made here once; and answer every
// delivery it created, with what an attempt needs (envelope, URL, sealed secret, erasure check),
// and which events it noted first. Rows the statement inserts are not visible to its own SELECT, so
// created rows come from RETURNING; the deliveries of an event given before are read afterwards
// (EXISTING_SQL).
export const FAN_OUT_SQL = `
  WITH event AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, event text, created_at text, app jsonb, data jsonb)
  ), received AS (
    INSERT INTO webhooks.received_events (event_id, event_type, app_id, occurred_at)
    SELECT id, event, (app ->> 'id')::int, created_at::timestamptz FROM event
    ON CONFLICT (event_id) DO NOTHING
    RETURNING event_id
  ), wanted AS (
    -- A CTE with a volatile function is never inlined: each delivery's id is drawn once, and is
    -- the same in its row and its envelope. An event the broker gives again goes to the endpoints
    -- that existed when it was first received (this statement's snapshot does not see the row it
    -- inserts), not to one created since, unless the first fan-out was still committing when this
    -- statement began (its received row is then invisible here too).
    -- A paused endpoint's deliveries are made held: recorded, never dropped, sent by a Recover.
    -- An ended listen session takes nothing more.
    SELECT gen_random_uuid() AS delivery_id, e.id AS endpoint_id, v.id AS event_id, v.event, v.created_at, v.app, v.data,
           e.paused_at IS NOT NULL AS paused
    FROM event v
    JOIN webhooks.webhook_endpoints e ON e.app_id = (v.app ->> 'id')::int AND v.event = ANY (e.events) AND e.ended_at IS NULL
    LEFT JOIN webhooks.received_events r ON r.event_id = v.id
    WHERE r.received_at IS NULL OR e.created_at <= r.received_at
  ), created AS (
    INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status)
    SELECT delivery_id, endpoint_id, event_id, event, (app ->> 'id')::int,
           jsonb_build_object('id', delivery_id, 'event', event, 'created_at', created_at, 'app', app, 'data', data),
           (CASE WHEN paused THEN 'held' ELSE 'pending' END)::webhooks."DeliveryStatus"
    FROM wanted
    ON CONFLICT (event_id, endpoint_id) DO NOTHING
    RETURNING *
  )
  SELECT d.event_id, ${ATTEMPT_TARGET_COLUMNS}
  FROM created d JOIN webhooks.webhook_endpoints e ON e.id = d.endpoint_id
  UNION ALL
  SELECT event_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM received`;

// The deliveries of events given before that may still need their first attempt or what follows
// it, read after the fan-out statement (see fanOutMany).
const EXISTING_SQL = `
  SELECT d.event_id, ${ATTEMPT_TARGET_COLUMNS}
  FROM webhooks.deliveries d JOIN webhooks.webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.event_id = ANY ($1::uuid[]) AND d.attempts <= 1`;

/**
 * Turns domain events into deliveries and makes their first attempts, whatever the broker
 * redelivers: the (event, endpoint) pair is unique, and each delivery's id, made once, is the
 * envelope `id` on every attempt. Events arriving together share one statement.
 *
 * A first attempt is made right here, in the event's handler, when its endpoint is healthy and has
 * room in this process; the event is acknowledged only once those attempts are recorded and their
 * retries confirmed, so a worker that dies meanwhile leaves the event, and the attempts not yet
 * recorded, to another. A first attempt for a struggling endpoint, or a busy one that would keep it
 * waiting more than a moment, goes through the deliver queue instead, so one slow endpoint does
 * not hold events the others are waiting for. At a slow host with no place left for it, it waits
 * on the top rung instead, with the event's others like it.
 */
export class FanOut {
  /** Events of apps with few endpoints: most apps, most events. */
  private readonly common: DataLoader<DomainEvent, EventDeliveries>;
  /**
   * Events whose app's latest of the same name made LARGE_FAN_OUT deliveries or more. Their statements
   * write hundreds of rows each, so they run apart, one at a time, a few events each. Another
   * team's event then never shares a statement with them, nor waits behind one for a statement
   * slot. It may still wait at the broker while such events fill the consumer's prefetch.
   */
  private readonly large: DataLoader<DomainEvent, EventDeliveries>;
  /** Deliveries made by each app's latest event of each name, by `app:event`: they pick the next one's lane. */
  private readonly fanOutSizes = new Map<string, number>();

  constructor(private readonly options: FanOutOptions) {
    const run = (events: readonly DomainEvent[]) => this.fanOutMany(events);
    this.common = statementBatches(run, { maxBatchSize: options.maxBatchSize ?? 200 });
    this.large = statementBatches(run, { maxBatchSize: Math.min(8, options.maxBatchSize ?? 8), concurrency: 1 });
  }

  /** Handles one event; `redelivered` says the broker gave it before (a worker lost it midway). */
  async take(event: DomainEvent, redelivered: boolean): Promise<FanOutResult> {
    const kind = `${event.app.id}:${event.event}`;
    const lane = (this.fanOutSizes.get(kind) ?? 0) >= LARGE_FAN_OUT ? this.large : this.common;
    const { first, deliveries } = await lane.load(event);
    if (first) this.noteFanOutSize(kind, deliveries.length);
    const { attempts } = this.options;
    let attempted = 0;
    // Each delivery's outcome on its own: one that fails must neither send the event back with
    // the others' attempts still under way (they would be made again), nor have the others'
    // retries queued again each time the event returned.
    // An event with many endpoints gives way to other work every few dozen deliveries, so one
    // team's hundreds of endpoints do not hold the worker while another's event waits.
    const waitingLongest: string[] = [];
    // First attempts handed on alone to each slow host: no more than it has places for.
    const handedOnTo = new Map<string, number>();
    const turns = [Promise.resolve()];
    for (let turn = 1; turn * YIELD_EVERY < deliveries.length; turn += 1) turns.push(turns[turn - 1]!.then(() => new Promise<void>((resolve) => setImmediate(resolve))));
    const outcomes = await Promise.allSettled(
      deliveries.map(async (delivery, n) => {
        await turns[Math.floor(n / YIELD_EVERY)];
        if (delivery.attempts === 0 && delivery.status === 'pending') {
          attempted += 1;
          if (attempts.hostFullAndSlow(delivery)) {
            this.options.metrics.handedOff.inc();
            waitingLongest.push(delivery.id);
            return;
          }
          if (await attempts.make(delivery, 1, { manual: false, redelivered, fromEvent: true })) return;
          this.options.metrics.handedOff.inc();
          // Past its tenant's share of a slow host, or its endpoint struggling there with no place
          // left: straight to the longest wait, not round the deliver queue first, in one message
          // with the event's others like it (below).
          if (!attempts.stopped && (attempts.wasBeyondShareOfSlowHost(delivery) || this.slowHostIsTaken(delivery, handedOnTo))) waitingLongest.push(delivery.id);
          else await this.handOn(delivery.id, false);
          return;
        }
        // A first attempt recorded by a worker that lost this event before acknowledging it.
        if (redelivered) await attempts.followUpAgain(delivery, 1);
      }),
    );
    // A failure midway (the database or the broker away for a moment): that delivery goes on
    // through the deliver queue, alone. Only if that fails too does the event go back to its queue.
    await Promise.all(
      outcomes.map((outcome, n) => {
        if (outcome.status === 'fulfilled') return undefined;
        const delivery = deliveries[n]!;
        this.options.logger.warn('first attempt failed midway; handed to the deliver queue', { deliveryId: delivery.id, endpointId: delivery.endpointId, error: outcome.reason });
        return this.handOn(delivery.id, true);
      }),
    );
    if (waitingLongest.length > 0) await this.waitLongest(waitingLongest);
    return { first, attempted };
  }

  private noteFanOutSize(kind: string, size: number): void {
    if (size < LARGE_FAN_OUT) {
      this.fanOutSizes.delete(kind);
      return;
    }
    if (this.fanOutSizes.size >= KNOWN_SIZES_MAX && !this.fanOutSizes.has(kind)) this.fanOutSizes.clear();
    this.fanOutSizes.set(kind, size);
  }

  /**
   * Whether a first attempt turned away (its endpoint struggles) would find its slow host taken.
   * Those the host has places for go on alone through the deliver queue, to be made in a moment;
   * the rest wait together. Without it, all of an event's hundreds of endpoints at a slow host
   * went through the deliver queue one by one, and most then waited the longest, one by one.
   */
  private slowHostIsTaken(delivery: AttemptTarget, handedOnTo: Map<string, number>): boolean {
    const placesLeft = this.options.attempts.slowHostPlacesLeft(delivery);
    if (placesLeft === undefined) return false;
    const host = hostOf(delivery.url);
    const handedOn = handedOnTo.get(host) ?? 0;
    if (handedOn >= placesLeft) return true;
    handedOnTo.set(host, handedOn + 1);
    return false;
  }

  /**
   * Sends a first attempt through the deliver queue; `givenBefore` when it may have been made and
   * recorded already (GIVEN_BEFORE_HEADER).
   */
  private async handOn(deliveryId: string, givenBefore: boolean): Promise<void> {
    const { publisher, queues } = this.options;
    const headers = { [ATTEMPT_HEADER]: 1, ...(givenBefore ? { [GIVEN_BEFORE_HEADER]: true } : {}) };
    await publisher.sendToQueue(queues.deliver, { delivery_id: deliveryId }, { messageId: deliveryId, headers });
  }

  /**
   * Sends first attempts to the top rung of the throttle ladder together, from where they return
   * to the group deliver queue: a slow host's backlog costs the broker one message per event, not
   * one per delivery. If that fails, each goes on alone through the deliver queue.
   */
  private async waitLongest(deliveryIds: readonly string[]): Promise<void> {
    const { publisher, queues } = this.options;
    const { headers } = handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { climb: true, toTop: true });
    try {
      await Promise.all(deliveryGroupsOf(deliveryIds).map((group) => publisher.sendToQueue(queues.throttleGroups.queue, group, { headers })));
    } catch (error) {
      this.options.logger.warn('a group of first attempts could not wait together; each handed to the deliver queue', { deliveries: deliveryIds.length, error });
      await Promise.all(deliveryIds.map((id) => this.handOn(id, true)));
    }
  }

  private async fanOutMany(events: readonly DomainEvent[]): Promise<EventDeliveries[]> {
    // The same event twice in one batch (a redelivery racing the first) is one row here.
    const unique = [...new Map(events.map((event) => [event.id, event])).values()];
    const { rows } = await this.options.pool.query<Record<string, unknown> & { event_id: string; id: string | null }>({ name: 'fan-out', text: FAN_OUT_SQL, values: [
      JSON.stringify(unique.map((event) => ({ id: event.id, event: event.event, created_at: event.created_at, app: event.app, data: event.data }))),
      this.options.erasureHashKey.pads,
    ] });
    const byEvent = new Map(unique.map((event) => [event.id, { event, answer: { first: false, deliveries: [] as AttemptTarget[] } }]));
    for (const row of rows) {
      const { event, answer } = byEvent.get(row.event_id)!;
      if (row.id === null) answer.first = true;
      else answer.deliveries.push({ ...attemptTargetOf(row), eventCreatedAt: event.created_at });
    }
    // The deliveries of an event given before (rare) are read in a snapshot of their own: the
    // statement's may be older than them. Given again while the worker that first took it was
    // still in its fan-out (it died there, and its statement committed after this one began), the
    // statement waited for that commit, then inserted nothing (or one delivery, to an endpoint
    // created since); read here, those deliveries are attempted rather than left pending for good.
    const givenBefore = [...byEvent.values()].filter(({ answer }) => !answer.first);
    if (givenBefore.length > 0) {
      const existing = await this.options.pool.query<Record<string, unknown> & { event_id: string; id: string }>({
        name: 'fan-out-existing',
        text: EXISTING_SQL,
        values: [givenBefore.map(({ event }) => event.id), this.options.erasureHashKey.pads],
      });
      for (const row of existing.rows) {
        const { event, answer } = byEvent.get(row.event_id)!;
        // The newer read wins: another copy may have recorded its first attempt since.
        const fresh = { ...attemptTargetOf(row), eventCreatedAt: event.created_at };
        const known = answer.deliveries.findIndex((delivery) => delivery.id === row.id);
        if (known >= 0) answer.deliveries[known] = fresh;
        else answer.deliveries.push(fresh);
      }
    }
    const answered = new Set<string>();
    return events.map((event) => {
      // Only one of two copies in a batch attempts the deliveries and counts as first.
      if (answered.has(event.id)) return { first: false, deliveries: [] };
      answered.add(event.id);
      return byEvent.get(event.id)!.answer;
    });
  }
}
