import DataLoader from 'dataloader';
import type pg from 'pg';
import type { DomainEvent } from '@feedback/contracts';
import type { ConfirmedPublisher, WebhookQueueNames } from '@feedback/messaging';
import { ATTEMPT_HEADER } from '@feedback/messaging';

export interface FanOutOptions {
  pool: pg.Pool;
  publisher: ConfirmedPublisher;
  queues: WebhookQueueNames;
  /** How long events wait to be grouped with others into one statement. Default: 2. */
  batchWindowMs?: number;
  /** Most events one statement carries. Default: 200. */
  maxBatchSize?: number;
}

export interface FanOutResult {
  /** False when the broker delivered this event before (its deliveries exist already). */
  first: boolean;
  /** Deliveries queued for their first attempt. */
  queued: number;
}

// In one statement, for a batch of events: note each event once; create one delivery per
// (event, endpoint that selected its name), skipping pairs that exist, with the envelope of
// specification section 2.5 whose `id` is the delivery's own, made here once; and answer every
// delivery of these events not yet attempted (the new ones, and any a crash left unqueued).
const FAN_OUT_SQL = `
  WITH event AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, event text, created_at text, app jsonb, data jsonb)
  ), received AS (
    INSERT INTO webhooks.received_events (event_id, event_type, app_id, occurred_at)
    SELECT id, event, (app ->> 'id')::int, created_at::timestamptz FROM event
    ON CONFLICT (event_id) DO NOTHING
    RETURNING event_id
  ), wanted AS (
    SELECT gen_random_uuid() AS delivery_id, e.id AS endpoint_id, v.id AS event_id, v.event, v.created_at, v.app, v.data
    FROM event v
    JOIN webhooks.webhook_endpoints e ON e.app_id = (v.app ->> 'id')::int AND v.event = ANY (e.events)
  ), created AS (
    INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
    SELECT delivery_id, endpoint_id, event_id, event, (app ->> 'id')::int,
           jsonb_build_object('id', delivery_id, 'event', event, 'created_at', created_at, 'app', app, 'data', data)
    FROM wanted
    ON CONFLICT (event_id, endpoint_id) DO NOTHING
    RETURNING id, event_id
  )
  SELECT event_id, id, true AS created FROM created
  UNION ALL
  SELECT d.event_id, d.id, false FROM webhooks.deliveries d
  WHERE d.event_id IN (SELECT id FROM event) AND d.attempts = 0 AND d.status = 'pending'
  UNION ALL
  SELECT event_id, NULL, true FROM received`;

/**
 * Turns domain events into deliveries, whatever the broker redelivers: the (event, endpoint) pair
 * is unique, and each delivery's id, made once, is the envelope `id` on every attempt. Every
 * delivery of the event not yet attempted is queued, so a crash between the commit and the
 * publish loses nothing (an attempt queued twice is sent once: see deliver.ts). Events arriving
 * together share one statement.
 */
export class FanOut {
  private readonly loader: DataLoader<DomainEvent, { first: boolean; deliveryIds: string[] }>;

  constructor(private readonly options: FanOutOptions) {
    const windowMs = options.batchWindowMs ?? 2;
    this.loader = new DataLoader((events) => this.fanOutMany(events), {
      cache: false,
      maxBatchSize: options.maxBatchSize ?? 200,
      batchScheduleFn: (callback) => setTimeout(callback, windowMs),
    });
  }

  async take(event: DomainEvent): Promise<FanOutResult> {
    const { first, deliveryIds } = await this.loader.load(event);
    const { publisher, queues } = this.options;
    await Promise.all(
      deliveryIds.map((id) => publisher.sendToQueue(queues.deliver, { delivery_id: id }, { messageId: id, headers: { [ATTEMPT_HEADER]: 1 } })),
    );
    return { first, queued: deliveryIds.length };
  }

  private async fanOutMany(events: readonly DomainEvent[]): Promise<Array<{ first: boolean; deliveryIds: string[] }>> {
    // The same event twice in one batch (a redelivery racing the first) is one row here.
    const unique = [...new Map(events.map((event) => [event.id, event])).values()];
    const { rows } = await this.options.pool.query<{ event_id: string; id: string | null; created: boolean }>(FAN_OUT_SQL, [
      JSON.stringify(unique.map((event) => ({ id: event.id, event: event.event, created_at: event.created_at, app: event.app, data: event.data }))),
    ]);
    const byEvent = new Map<string, { first: boolean; deliveryIds: Set<string> }>(unique.map((event) => [event.id, { first: false, deliveryIds: new Set() }]));
    for (const row of rows) {
      const entry = byEvent.get(row.event_id)!;
      if (row.id === null) entry.first = true;
      else entry.deliveryIds.add(row.id);
    }
    const answered = new Set<string>();
    return events.map((event) => {
      const entry = byEvent.get(event.id)!;
      // Only one of two copies in a batch queues the deliveries and counts as first.
      if (answered.has(event.id)) return { first: false, deliveryIds: [] };
      answered.add(event.id);
      return { first: entry.first, deliveryIds: [...entry.deliveryIds] };
    });
  }
}
