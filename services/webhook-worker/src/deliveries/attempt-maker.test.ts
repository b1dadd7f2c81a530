import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, durableBrokerObjects, topologyNames } from '@feedback/messaging';
import { ATTEMPT_HEADER, PRODUCTION_THROTTLE_DELAYS_MS, declareWebhookTopology, durableWebhookQueues, webhookQueueNames } from '../queues/webhook-topology.js';
import { createMetricsRegistry } from '@feedback/service-runtime';
import { HttpsReceiver, createMigratedTestDatabase, createTestNamespace, deleteBrokerObjects, eventually, resolveTestInfrastructure, testCertificates } from '@feedback/test-support';
import type { MigratedTestDatabase, TestInfrastructure } from '@feedback/test-support';
import amqplib from 'amqplib';
import type pg from 'pg';
import winston from 'winston';
import { migrateWorkerDatabase } from '../database.js';
import { SecretBox } from '../endpoints/signing-secrets.js';
import { WebhookSender } from '../outbound/webhook-sender.js';
import { AttemptMaker } from './attempt-maker.js';
import type { AttemptMakerOptions } from './attempt-maker.js';
import { AttemptStore } from './attempt-store.js';
import { ErasureHashKey } from './erased-users.js';
import { EndpointTeams, FairShare } from './fair-share.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const namespace = createTestNamespace();
// Long delays: a queued retry stays in its queue for the test to count. Each its own, so each
// attempt's retry queue is told apart.
const retryDelaysMs = [600_000, 600_001, 600_002, 600_003, 600_004];
const queues = webhookQueueNames(topologyNames(namespace), retryDelaysMs, PRODUCTION_THROTTLE_DELAYS_MS);
let infrastructure: TestInfrastructure;
let database: MigratedTestDatabase;
let pool: pg.Pool;
let broker: Broker;
let publisher: ConfirmedPublisher;
let receiver: HttpsReceiver;
let store: AttemptStore;
let attempts: AttemptMaker;
let endpointId: string;

beforeAll(async () => {
  infrastructure = await resolveTestInfrastructure();
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger), infrastructure);
  pool = database.pool;
  broker = Broker.connect({ url: infrastructure.amqpUrl, connectionName: 'attempt-maker-test', logger });
  await broker.waitUntilConnected(5000);
  publisher = new ConfirmedPublisher(broker, { name: 'attempt-maker-test', setup: (channel) => declareWebhookTopology(channel, queues) });
  receiver = await HttpsReceiver.start(testCertificates().trusted);
  receiver.answer = () => ({ status: 500 });
  const secrets = new SecretBox(randomBytes(32).toString('base64'));
  store = new AttemptStore(pool, { erasureHashKey: new ErasureHashKey(randomBytes(32)) });
  attempts = attemptMaker(secrets);
  endpointId = await insertEndpoint(pool, { url: receiver.url(), sealedSecret: secrets.seal('whsec_test') });
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await publisher?.close();
  await broker?.close();
  await deleteBrokerObjects(infrastructure.amqpUrl, durableBrokerObjects(namespace, durableWebhookQueues(namespace, retryDelaysMs)));
  await database?.drop();
  await infrastructure?.stop();
});

/** An AttemptMaker on this file's store and broker, sending to local receivers. */
function attemptMaker(
  secrets: SecretBox,
  limits: Pick<AttemptMakerOptions, 'concurrency' | 'perEndpointConcurrency' | 'struggleAfterMs' | 'shortWaitMs' | 'fairShare'> & { store?: AttemptStore } = {},
): AttemptMaker {
  return new AttemptMaker({
    store,
    publisher,
    secrets,
    queues,
    logger,
    ...limits,
    sender: new WebhookSender({ timeoutMs: 10_000, allowedPrivateHosts: ['localhost'], extraCaFile: testCertificates().caFile }),
    metrics: new WebhookMetrics(createMetricsRegistry('test'), () => ({ active: 0, waitingForWorker: 0, waitingForEndpoint: 0 })),
  });
}

/** Messages waiting in a queue (by default the first retry queue) for this delivery, with their attempt headers; taken off it. */
async function queuedFor(deliveryId: string, queue = queues.retries[0]!.queue): Promise<unknown[]> {
  const connection = await amqplib.connect(infrastructure.amqpUrl);
  try {
    const channel = await connection.createChannel();
    const attemptHeaders: unknown[] = [];
    for (let message = await channel.get(queue); message; message = await channel.get(queue)) {
      if ((JSON.parse(message.content.toString()) as { delivery_id: string }).delivery_id === deliveryId) attemptHeaders.push(message.properties.headers?.[ATTEMPT_HEADER]);
      channel.ack(message);
    }
    return attemptHeaders;
  } finally {
    await connection.close();
  }
}

const queuedRetries = async (deliveryId: string) => (await queuedFor(deliveryId)).length;

/**
 * Two copies of a first attempt: this one loaded the delivery before the other copy recorded its
 * failure (retrying), and now fails too.
 */
async function secondCopyOfAFailedFirstAttempt(redelivered: boolean): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
     VALUES ($1, $2, $3, 'suggestion.created', 1, '{"event":"suggestion.created"}')`,
    [id, endpointId, randomUUID()],
  );
  const loaded = (await store.load(id))!;
  // The other copy's record.
  expect(await store.record({ deliveryId: id, number: 1, startedAt: new Date(), durationMs: 2, responseCode: 500, error: null, responseBodyStart: null, status: 'retrying', manual: false })).toBe(true);
  await attempts.make(loaded, 1, { manual: false, redelivered });
  return id;
}

describe('AttemptMaker, for an endpoint that keeps failing', () => {
  it('queues the retry after attempt n in the n-th retry queue, naming attempt n + 1, and abandons the sixth', async () => {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
       VALUES ($1, $2, $3, 'suggestion.created', 1, '{"event":"suggestion.created"}')`,
      [id, endpointId, randomUUID()],
    );
    for (let number = 1; number <= 6; number += 1) {
      await attempts.make((await store.load(id))!, number, { manual: false, redelivered: false });
      // Every queue of the schedule and the abandoned queue, so a message in the wrong one shows.
      const where = await Promise.all([...queues.retries.map(({ queue }) => queue), queues.abandoned].map((queue) => queuedFor(id, queue)));
      const expected = [...queues.retries, { queue: queues.abandoned }].map((_, index) => (index === number - 1 ? [number === 6 ? 6 : number + 1] : []));
      expect({ number, where }).toEqual({ number, where: expected });
    }
    const { rows } = await pool.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhooks.deliveries WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'abandoned', attempts: 6 });
  });
});

describe('AttemptMaker, for an event its endpoint no longer selects', () => {
  it('cancels a retry of it without sending it; a redelivery by hand still goes', async () => {
    const id = randomUUID();
    // The endpoint selects suggestion.created only: this ticket event was dropped from it after its first attempt failed.
    await pool.query(
      `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts)
       VALUES ($1, $2, $3, 'ticket.created', 1, '{"event":"ticket.created"}', 'retrying', 1)`,
      [id, endpointId, randomUUID()],
    );
    const sentBefore = receiver.received.length;
    const target = (await store.load(id))!;
    expect(target.selected).toBe(false);
    await attempts.make(target, 2, { manual: false, redelivered: false });
    expect(receiver.received).toHaveLength(sentBefore);
    const state = async () => (await pool.query<{ status: string; attempts: number }>('SELECT status::text AS status, attempts FROM webhooks.deliveries WHERE id = $1', [id])).rows[0];
    expect(await state()).toEqual({ status: 'cancelled', attempts: 1 });
    expect(await queuedRetries(id)).toBe(0);

    await attempts.make((await store.load(id))!, 2, { manual: true, redelivered: false });
    expect(receiver.received).toHaveLength(sentBefore + 1);
    expect(await state()).toEqual({ status: 'abandoned', attempts: 2 });
  });
});

describe('AttemptMaker, for a copy of an attempt whose outcome another copy recorded first', () => {
  it('queues nothing when its message is a first delivery: the copy that recorded queues the retry', async () => {
    const id = await secondCopyOfAFailedFirstAttempt(false);
    expect(await queuedRetries(id)).toBe(0);
  });

  it('queues the recorded retry again when its message was given before: the copy that recorded may have died before queueing it', async () => {
    const id = await secondCopyOfAFailedFirstAttempt(true);
    expect(await queuedRetries(id)).toBe(1);
    const { rows } = await pool.query<{ status: string; attempts: number }>('SELECT status::text AS status, attempts FROM webhooks.deliveries WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'retrying', attempts: 1 });
  });
});

describe('AttemptMaker, at an endpoint that has all its slots in flight', () => {
  const perEndpoint = 2;
  let own: HttpsReceiver;
  let maker: AttemptMaker;
  let ownEndpointId: string;
  const secrets = new SecretBox(randomBytes(32).toString('base64'));

  beforeAll(async () => {
    own = await HttpsReceiver.start(testCertificates().trusted);
    // A short wait of up to a second, and slow from 5 s: the first answer, which opens the
    // connection, may take a hundred milliseconds or more on a loaded machine, and the fast
    // endpoint's bursts must still be judged fast. The slow endpoint answers in 1.5 s.
    maker = attemptMaker(secrets, { perEndpointConcurrency: perEndpoint, shortWaitMs: 1000, struggleAfterMs: 5000 });
    ownEndpointId = await insertEndpoint(pool, { name: 'Burst', url: own.url(), sealedSecret: secrets.seal('whsec_burst') });
  });

  afterAll(async () => {
    await own?.close();
  });

  async function pendingDeliveries(count: number, endpoint = ownEndpointId) {
    const ids = Array.from({ length: count }, () => randomUUID());
    for (const id of ids) {
      await pool.query(
        `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
         VALUES ($1, $2, $3, 'suggestion.created', 1, '{"event":"suggestion.created"}')`,
        [id, endpoint, randomUUID()],
      );
    }
    return Promise.all(ids.map(async (id) => (await store.load(id))!));
  }

  /** A second endpoint to the same receiver, with the same secret. */
  async function anotherEndpoint(name: string): Promise<string> {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO webhooks.webhook_endpoints (id, team_id, app_id, name, url, events, secret_encrypted)
       SELECT $1, team_id, app_id, $3, url, events, secret_encrypted FROM webhooks.webhook_endpoints WHERE id = $2`,
      [id, ownEndpointId, name],
    );
    return id;
  }

  /** One good answer first: the endpoint is known, to this maker, to answer fast. */
  async function knownFast(attempts: AttemptMaker): Promise<void> {
    answerAfter(5);
    const [first] = await pendingDeliveries(1);
    expect(await attempts.make(first!, 1, { manual: false, redelivered: false, fromEvent: true })).toBe(true);
  }

  /** Holds every answer from now on until the function it returns is called. */
  function holdAnswers(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    own.answer = () => ({ status: 204, until: held });
    return release;
  }

  /** Answers 204 after `delayMs`, noting the most answers outstanding at once. */
  function answerAfter(delayMs: number, status = 204): { most: number } {
    const seen = { most: 0 };
    let outstanding = 0;
    own.answer = () => {
      outstanding += 1;
      seen.most = Math.max(seen.most, outstanding);
      return { status, delayMs, until: new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => (outstanding -= 1)) };
    };
    return seen;
  }

  it('makes a burst to a fast, healthy endpoint from here, its slots at a time, rather than send most of it elsewhere', async () => {
    await knownFast(maker);
    const seen = answerAfter(5);
    const burst = await pendingDeliveries(12);
    const made = await Promise.all(burst.map((delivery) => maker.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true })));
    expect(made).toEqual(burst.map(() => true));
    expect(seen.most).toBeLessThanOrEqual(perEndpoint);
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE id = ANY($1::uuid[]) AND status = 'delivered'`, [burst.map((delivery) => delivery.id)]);
    expect(rows[0]!.n).toBe(12);
    expect(maker.slots).toMatchObject({ waitingForWorker: 0, waitingForEndpoint: 0 });
  });

  it("counts attempts waiting for their endpoint's slots apart from those waiting for the worker's", async () => {
    await knownFast(maker);
    const release = holdAnswers();
    const burst = await pendingDeliveries(4);
    const making = Promise.all(burst.map((delivery) => maker.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true })));
    // The endpoint's two slots taken, the other two in its line: more workers would not help.
    await eventually(() => (maker.slots.active === perEndpoint && maker.slots.waitingForEndpoint === 2 ? true : undefined), { what: 'two waiting' });
    expect(maker.slots.waitingForWorker).toBe(0);
    release();
    expect(await making).toEqual([true, true, true, true]);
  });

  it('sends elsewhere what would wait long: a burst to an endpoint whose answers are slow', async () => {
    // Another endpoint, of which this worker has seen no answer yet.
    const slowEndpointId = await anotherEndpoint('Slow');
    answerAfter(1_500);
    const [first] = await pendingDeliveries(1, slowEndpointId);
    expect(await maker.make(first!, 1, { manual: false, redelivered: false, fromEvent: true })).toBe(true);
    const burst = await pendingDeliveries(5, slowEndpointId);
    const made = await Promise.all(burst.map((delivery) => maker.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true })));
    // Two slots; a third would wait about 1.5 s, past the second a short wait may take here.
    expect(made).toEqual([true, true, false, false, false]);
  });

  it('sends the waiting attempts elsewhere as soon as the endpoint starts failing', async () => {
    await knownFast(maker);
    const sentBefore = own.received.length;
    answerAfter(30, 503);
    const burst = await pendingDeliveries(5);
    const made = await Promise.all(burst.map((delivery) => maker.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true })));
    // The two in flight fail; the three waiting are never sent from here.
    expect(made).toEqual([true, true, false, false, false]);
    expect(own.received.length - sentBefore).toBe(2);
    expect(maker.slots).toMatchObject({ waitingForWorker: 0, waitingForEndpoint: 0 });
    // Failing, so attempts that find no slot may wait longer (the throttle ladder, deliver.ts).
    expect(maker.isFailing(ownEndpointId)).toBe(true);
    // A struggling endpoint's first attempt from an event goes elsewhere at once.
    const [next] = await pendingDeliveries(1);
    expect(await maker.make(next!, 1, { manual: false, redelivered: false, fromEvent: true })).toBe(false);
  });

  it.each([false, true])(
    'does not send a copy of an attempt that another copy recorded while it waited for a slot; queues the retry again if its message was given before (%s)',
    async (givenBefore) => {
      // A maker of its own: the one above has seen this endpoint fail.
      const maker = attemptMaker(secrets, { perEndpointConcurrency: perEndpoint, shortWaitMs: 1000, struggleAfterMs: 5000 });
      await knownFast(maker);
      const release = holdAnswers();
      const sentBefore = own.received.length;
      const [blockerA, blockerB, waiting] = await pendingDeliveries(3);
      const blocking = [blockerA!, blockerB!].map((delivery) => maker.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true }));
      await eventually(() => (own.received.length - sentBefore === perEndpoint ? true : undefined), { what: 'both slots taken' });
      const copy = maker.make(waiting!, 1, { manual: false, redelivered: givenBefore, fromEvent: true });
      await eventually(() => (maker.slots.waitingForEndpoint === 1 ? true : undefined), { what: 'the copy waiting' });
      // The other copy of this attempt, elsewhere, failed and recorded it (its retry maybe never queued).
      expect(await store.record({ deliveryId: waiting!.id, number: 1, startedAt: new Date(), durationMs: 2, responseCode: 500, error: null, responseBodyStart: null, status: 'retrying', manual: false })).toBe(true);
      release();
      expect(await copy).toBe(true);
      await Promise.all(blocking);
      expect(own.received.length - sentBefore).toBe(perEndpoint);
      expect(await queuedFor(waiting!.id, queues.retries[0]!.queue)).toEqual(givenBefore ? [2] : []);
    },
  );

  it('once stopped, finishes only the requests already sent, and hands every other attempt back', async () => {
    // A worker of two slots, as at shutdown with more attempts in hand than it can send at once.
    const stopping = attemptMaker(secrets, { concurrency: 2, perEndpointConcurrency: perEndpoint, shortWaitMs: 1000, struggleAfterMs: 5000 });
    const otherEndpointId = await anotherEndpoint('Other');
    await knownFast(stopping);
    const release = holdAnswers();
    const sentBefore = own.received.length;
    const burst = await pendingDeliveries(4);
    const others = await pendingDeliveries(2, otherEndpointId);
    const making = Promise.all([...burst, ...others].map((delivery) => stopping.make(delivery, 1, { manual: false, redelivered: false, fromEvent: true })));
    // Two sent; two in the endpoint's line; the other endpoint's two waiting for the worker.
    await eventually(() => (own.received.length - sentBefore === 2 && stopping.slots.waitingForEndpoint === 2 && stopping.slots.waitingForWorker === 2 ? true : undefined), {
      what: 'two sent, four waiting',
    });

    stopping.stop();
    release();
    expect(await making).toEqual([true, true, false, false, false, false]);
    expect(own.received.length - sentBefore).toBe(2);
    expect(stopping.slots).toEqual({ active: 0, waitingForWorker: 0, waitingForEndpoint: 0 });
    const { rows } = await pool.query<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM webhooks.deliveries WHERE id = ANY($1::uuid[]) ORDER BY attempts DESC`,
      [[...burst, ...others].map((delivery) => delivery.id)],
    );
    // Recorded as sent, or untouched for the worker the queue gives them to.
    expect(rows).toEqual([...Array(2).fill({ status: 'delivered', attempts: 1 }), ...Array(4).fill({ status: 'pending', attempts: 0 })]);
    // And nothing new starts.
    const [late] = await pendingDeliveries(1);
    expect(await stopping.make(late!, 1, { manual: false, redelivered: false, fromEvent: false })).toBe(false);
  });
});

describe('AttemptMaker, telling a failing endpoint from a slow one', () => {
  it('counts an endpoint as failing from a failed attempt until a good answer, and one that answers slowly as struggling but not failing', async () => {
    const receiver = await HttpsReceiver.start(testCertificates().trusted);
    const secrets = new SecretBox(randomBytes(32).toString('base64'));
    // Slow from 50 ms here, so the test need not wait a second.
    const maker = attemptMaker(secrets, { perEndpointConcurrency: 2, struggleAfterMs: 50 });
    try {
      const endpointId = await insertEndpoint(pool, { name: 'Failing or slow', url: receiver.url(), sealedSecret: secrets.seal('whsec_failing_or_slow') });
      const attemptWith = async (answer: { status: number; delayMs?: number }) => {
        receiver.answer = () => answer;
        const id = randomUUID();
        await pool.query(
          `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
           VALUES ($1, $2, $3, 'suggestion.created', 1, '{"event":"suggestion.created"}')`,
          [id, endpointId, randomUUID()],
        );
        expect(await maker.make((await store.load(id))!, 1, { manual: false, redelivered: false })).toBe(true);
      };
      expect(maker.isFailing(endpointId)).toBe(false);
      await attemptWith({ status: 500 });
      expect(maker.isFailing(endpointId)).toBe(true);
      await attemptWith({ status: 204, delayMs: 200 });
      expect(maker.isFailing(endpointId)).toBe(false);
      await attemptWith({ status: 500 });
      await attemptWith({ status: 204 });
      expect(maker.isFailing(endpointId)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

/** A pending delivery to a new endpoint at the receiver's `/name`, as an attempt loads it. */
async function pendingDeliveryAt(receiver: HttpsReceiver, secrets: SecretBox, name: string) {
  const endpoint = await insertEndpoint(pool, { name, url: receiver.url(`/${name}`), sealedSecret: secrets.seal('whsec_share') });
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
     VALUES ($1, $2, $3, 'suggestion.created', 1, '{"event":"suggestion.created"}')`,
    [id, endpoint, randomUUID()],
  );
  return (await store.load(id))!;
}

describe("AttemptMaker, with each tenant's share", () => {
  it("turns away an attempt past its host's cap without sending it, and says it may wait longer once that host answers slowly", async () => {
    const receiver = await HttpsReceiver.start(testCertificates().trusted);
    const secrets = new SecretBox(randomBytes(32).toString('base64'));
    const share = new FairShare({ concurrency: 64, perHost: 1 });
    const maker = attemptMaker(secrets, { fairShare: { share, teams: new EndpointTeams(pool) } });
    try {
      const delivery = (name: string) => pendingDeliveryAt(receiver, secrets, name);
      let release!: () => void;
      receiver.answer = () => ({ status: 204, until: new Promise((resolve) => (release = () => resolve(undefined))) });
      const first = maker.make(await delivery('one'), 1, { manual: false, redelivered: false });
      await eventually(() => (receiver.inFlight === 1 ? true : undefined), { what: 'the first request at the host' });
      const second = await delivery('two');
      expect(await maker.make(second, 1, { manual: false, redelivered: false })).toBe(false);
      expect(receiver.received).toHaveLength(1);
      // The host answers fast: an attempt turned away waits the shortest time.
      expect(maker.wasBeyondShareOfSlowHost(second)).toBe(false);
      share.noteAnswer(receiver.url(), 1500, true);
      expect(maker.wasBeyondShareOfSlowHost(second)).toBe(true);
      release();
      expect(await first).toBe(true);
      // The host's place is given back with the answer.
      receiver.answer = () => ({ status: 204 });
      expect(await maker.make(await delivery('three'), 1, { manual: false, redelivered: false })).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('reads a waiting delivery again once it is next in line, and again at its turn if that read has grown old', async () => {
    const receiver = await HttpsReceiver.start(testCertificates().trusted);
    const secrets = new SecretBox(randomBytes(32).toString('base64'));
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    // It answers quickly: attempts past its cap wait in line.
    share.noteAnswer(receiver.url(), 5, true);
    const reads: string[] = [];
    const watched = Object.assign(Object.create(Object.getPrototypeOf(store) as object) as AttemptStore, store, {
      now: (id: string) => {
        reads.push(id);
        return store.now(id);
      },
    });
    const maker = attemptMaker(secrets, { store: watched, fairShare: { share, teams: new EndpointTeams(pool) } });
    const releases: Array<() => void> = [];
    try {
      const delivery = (name: string) => pendingDeliveryAt(receiver, secrets, name);
      receiver.answer = () => ({ status: 204, until: new Promise((resolve) => releases.push(() => resolve(undefined))) });
      const make = async (name: string) => {
        const target = await delivery(name);
        return { target, made: maker.make(target, 1, { manual: false, redelivered: false }) };
      };
      const one = await make('one');
      await eventually(() => (receiver.inFlight === 1 ? true : undefined), { what: 'the first request at the host' });
      // In line in this order: the second, then the third.
      const two = await make('two');
      await eventually(() => (share.waitingAt(receiver.url()) === 1 ? true : undefined), { what: 'the second in line' });
      const three = await make('three');
      await eventually(() => (share.waitingAt(receiver.url()) === 2 ? true : undefined), { what: 'the third in line' });
      releases[0]!();
      // The second has the place and is sent; the third, next in line, reads meanwhile.
      await eventually(() => (receiver.inFlight === 1 && receiver.received.length === 2 ? true : undefined), { what: 'the second request at the host' });
      await eventually(() => (reads.includes(three.target.id) ? true : undefined), { what: 'the third read ahead' });
      // Its endpoint moves after that read, and its turn comes long after: it reads again.
      await pool.query('UPDATE webhooks.webhook_endpoints SET url = $1 WHERE id = $2', [receiver.url('/moved'), three.target.endpointId]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      releases[1]!();
      await eventually(() => (receiver.received.length === 3 ? true : undefined), { what: 'the third request' });
      releases[2]!();
      expect(await Promise.all([one.made, two.made, three.made])).toEqual([true, true, true]);
      expect(reads.filter((id) => id === three.target.id)).toHaveLength(2);
      expect(receiver.received.map((request) => request.path)).toEqual(['/one', '/two', '/moved']);
    } finally {
      for (const release of releases) release();
      await receiver.close();
    }
  });
});
