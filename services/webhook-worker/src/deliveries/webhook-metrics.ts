import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** The attempts of this worker the gauges read at each scrape, from `AttemptMaker.slots`. */
export interface AttemptSlots {
  /** Being made now. */
  active: number;
  /** Waiting for one of the worker's slots: more workers would help. */
  waitingForWorker: number;
  /** Waiting for one of their endpoint's slots: a burst to one receiver, which more workers would only send faster. */
  waitingForEndpoint: number;
}

/**
 * What the worker counts for operators (`/metrics` on its health port): events taken, attempts by
 * outcome and kind with their durations, how deliveries settle, and the attempts in flight and
 * waiting for a slot. Alert on a rising share of failed attempts, on attempts waiting, and on
 * abandoned deliveries; the queues' own lengths come from RabbitMQ.
 */
export class WebhookMetrics {
  readonly events: Counter<'outcome'>;
  readonly attempts: Counter<'outcome' | 'kind'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly eventToDelivery: Histogram;
  readonly settled: Counter<'status'>;
  readonly handedOff: Counter;
  readonly secretUnopenable: Counter;
  readonly throttled: Counter;
  readonly throttledUnread: Counter;
  readonly pausedEndpoints: Gauge;

  constructor(
    /** The service's registry: the worker's consumers count their messages there too. */
    readonly registry: Registry,
    slots: () => AttemptSlots,
  ) {
    const registers = [registry];
    this.events = new Counter({
      name: 'feedback_webhook_events_total',
      help: 'Domain events taken for fan-out: new, or given again by the broker (duplicate)',
      labelNames: ['outcome'],
      registers,
    });
    this.attempts = new Counter({
      name: 'feedback_webhook_attempts_total',
      help: 'Delivery attempts made, by outcome (delivered: 2xx; failed: anything else) and kind (first, retry, manual: a redelivery by hand)',
      labelNames: ['outcome', 'kind'],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'feedback_webhook_attempt_duration_seconds',
      help: 'Time from sending an attempt to its complete answer, or to its failure',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.eventToDelivery = new Histogram({
      name: 'feedback_webhook_event_to_delivery_seconds',
      help: "Time from an event's created_at (the api's clock) to the 2xx answer of a first attempt made at fan-out: what a receiver waits",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.settled = new Counter({
      name: 'feedback_webhook_deliveries_settled_total',
      help: 'Deliveries that reached a final status on the automatic schedule: delivered, abandoned (the last retry failed), withheld (names an erased user) or cancelled (its endpoint no longer selects the event); manual attempts are in feedback_webhook_attempts_total',
      labelNames: ['status'],
      registers,
    });
    // At 0 from the start: an alert on increase() then sees a worker's first abandoned delivery.
    for (const status of ['delivered', 'abandoned', 'withheld', 'cancelled']) this.settled.inc({ status }, 0);
    this.handedOff = new Counter({
      name: 'feedback_webhook_first_attempts_handed_off_total',
      help: 'First attempts sent through the deliver queue because their endpoint was struggling or busy in this worker',
      registers,
    });
    this.secretUnopenable = new Counter({
      name: 'feedback_webhook_attempts_held_secret_unopenable_total',
      help: "Attempts not made, and put back to wait, because no key this worker has opens their endpoint's signing secret (SIGNING_SECRET_ENCRYPTION_KEY, SIGNING_SECRET_PREVIOUS_KEYS)",
      registers,
    });
    this.throttled = new Counter({
      name: 'feedback_webhook_attempts_throttled_total',
      help: 'Attempts put back in a throttle queue (a second, longer while their endpoint fails) because their endpoint already had its share in flight',
      registers,
    });
    this.throttledUnread = new Counter({
      name: 'feedback_webhook_attempts_throttled_unread_total',
      help: 'Of the attempts put back in a throttle queue, those back from one to find their host still without room: put back before their delivery was read',
      registers,
    });
    this.pausedEndpoints = new Gauge({
      name: 'feedback_webhook_endpoints_paused',
      help: 'Endpoints paused now, by the service after failing for the pause period or by a member (read at each pause check)',
      registers,
    });
    new Gauge({
      name: 'feedback_webhook_attempts_in_flight',
      help: 'Attempts being made now in this worker (at most DELIVERY_PREFETCH)',
      registers,
      collect() {
        this.set(slots().active);
      },
    });
    new Gauge({
      name: 'feedback_webhook_attempts_waiting',
      help: 'Attempts waiting in this worker for one of its DELIVERY_PREFETCH slots: more workers would help',
      registers,
      collect() {
        this.set(slots().waitingForWorker);
      },
    });
    new Gauge({
      name: 'feedback_webhook_attempts_waiting_for_endpoint',
      help: "Attempts waiting in this worker for one of their endpoint's PER_ENDPOINT_CONCURRENCY slots (a burst to one receiver)",
      registers,
      collect() {
        this.set(slots().waitingForEndpoint);
      },
    });
  }
}
