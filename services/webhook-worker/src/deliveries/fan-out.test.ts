import { describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { DomainEvent } from '@feedback/contracts';
import { topologyNames } from '@feedback/messaging';
import { webhookQueueNames } from '../queues/webhook-topology.js';
import type { AttemptMaker } from './attempt-maker.js';
import { FanOut } from './fan-out.js';
import type { FanOutOptions } from './fan-out.js';

const queues = webhookQueueNames(topologyNames('fan-out-test.'), [1000], [1000, 30_000]);
let eventCount = 0;

function eventOf(appId: number): DomainEvent {
  eventCount += 1;
  return { id: `00000000-0000-4000-8000-${String(eventCount).padStart(12, '0')}`, event: 'suggestion.created', created_at: new Date().toISOString(), app: { id: appId }, data: {} } as unknown as DomainEvent;
}

/**
 * A database that answers the fan-out statement as PostgreSQL would: each event noted, and as many
 * deliveries as its app has endpoints. It keeps the apps each statement carried, and the most
 * statements that ran at once.
 */
function fanOutDatabase(endpoints: (appId: number) => Array<{ status: string; attempts: number; url: string }>) {
  const statements: number[][] = [];
  let running = 0;
  let mostAtOnce = 0;
  const pool = {
    async query({ values }: { values: unknown[] }) {
      const events = JSON.parse(values[0] as string) as Array<{ id: string; app: { id: number } }>;
      statements.push(events.map((event) => event.app.id));
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      const rows = events.flatMap((event) => [
        { event_id: event.id, id: null },
        ...endpoints(event.app.id).map((delivery, n) => ({ event_id: event.id, id: `${event.id}-${n}`, endpoint_id: `endpoint-${n}`, event_type: 'suggestion.created', body: '{}', ...delivery })),
      ]);
      return { rows };
    },
  };
  return { pool: pool as unknown as pg.Pool, statements, mostAtOnce: () => mostAtOnce };
}

/** Sends kept by queue. */
function recordingPublisher() {
  const sent: Array<{ queue: string; body: unknown }> = [];
  return { sent, publisher: { sendToQueue: async (queue: string, body: unknown) => void sent.push({ queue, body }) } };
}

function fanOut(pool: pg.Pool, attempts: Partial<AttemptMaker>, publisher = recordingPublisher().publisher): FanOut {
  return new FanOut({
    pool,
    publisher,
    queues,
    attempts: attempts as AttemptMaker,
    metrics: { handedOff: { inc: () => undefined } },
    logger: { warn: () => undefined },
    erasureHashKey: { pads: ['', ''] },
  } as unknown as FanOutOptions);
}

// Deliveries attempted already: the fan-out then only notes the event.
const attempted = (count: number) => Array.from({ length: count }, () => ({ status: 'delivered', attempts: 1, url: 'https://hooks.example/a' }));

describe('FanOut, its statements', () => {
  it("runs an app's events apart once one of them made many deliveries, so other teams' events never share its statements", async () => {
    const database = fanOutDatabase((appId) => attempted(appId === 1 ? 500 : 1));
    const fan = fanOut(database.pool, {});
    await fan.take(eventOf(1), false);
    database.statements.length = 0;

    await Promise.all([fan.take(eventOf(1), false), fan.take(eventOf(2), false), fan.take(eventOf(2), false)]);

    expect(database.statements).toHaveLength(2);
    expect(database.statements).toContainEqual([1]);
    expect(database.statements).toContainEqual([2, 2]);
  });

  it('takes a few events of such an app in a statement, one statement at a time', async () => {
    const database = fanOutDatabase(() => attempted(100));
    const fan = fanOut(database.pool, {});
    await fan.take(eventOf(3), false);
    database.statements.length = 0;

    await Promise.all(Array.from({ length: 20 }, () => fan.take(eventOf(3), false)));

    expect(Math.max(...database.statements.map((statement) => statement.length))).toBeLessThanOrEqual(8);
    expect(database.statements.flat()).toHaveLength(20);
    expect(database.mostAtOnce()).toBe(1);
  });

  it('takes an app back among the others once its events make few deliveries', async () => {
    let endpoints = 500;
    const database = fanOutDatabase((appId) => attempted(appId === 4 ? endpoints : 1));
    const fan = fanOut(database.pool, {});
    await fan.take(eventOf(4), false);
    endpoints = 1;
    await fan.take(eventOf(4), false);
    database.statements.length = 0;

    await Promise.all([fan.take(eventOf(4), false), fan.take(eventOf(5), false)]);

    expect(database.statements).toEqual([[4, 5]]);
  });
});

describe('FanOut, first attempts at a slow host', () => {
  const pending = (count: number) => Array.from({ length: count }, () => ({ status: 'pending', attempts: 0, url: 'https://slow.example/hook' }));
  // Every endpoint struggles: an event's first attempt for it is never made in the event's handler.
  const struggling = (placesLeft: number | undefined): Partial<AttemptMaker> => ({
    hostFullAndSlow: () => false,
    make: async () => false,
    wasBeyondShareOfSlowHost: () => false,
    slowHostPlacesLeft: () => placesLeft,
    get stopped() {
      return false;
    },
  });

  it('hands on alone only as many as the host has places for, and sends the rest to wait together', async () => {
    const { sent, publisher } = recordingPublisher();
    const fan = fanOut(fanOutDatabase(() => pending(6)).pool, struggling(2), publisher);

    expect(await fan.take(eventOf(6), false)).toMatchObject({ attempted: 6 });

    expect(sent.filter((send) => send.queue === queues.deliver)).toHaveLength(2);
    const waiting = sent.filter((send) => send.queue === queues.throttleGroups.queue);
    expect(waiting).toHaveLength(1);
    expect((waiting[0]!.body as { delivery_ids: string[] }).delivery_ids).toHaveLength(4);
  });

  it('hands each on alone while its host is not slow', async () => {
    const { sent, publisher } = recordingPublisher();
    const fan = fanOut(fanOutDatabase(() => pending(6)).pool, struggling(undefined), publisher);

    await fan.take(eventOf(7), false);

    expect(sent.map((send) => send.queue)).toEqual(Array(6).fill(queues.deliver));
  });
});
