import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { topologyNames } from '@feedback/messaging';
import {
  ABANDONED_QUEUE_LIMITS,
  ATTEMPT_HEADER,
  MANUAL_HEADER,
  PRODUCTION_RETRY_DELAYS_MS,
  PRODUCTION_THROTTLE_DELAYS_MS,
  declareWebhookTopology,
  webhookQueueNames,
} from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import pg from 'pg';
import { HttpsReceiver, eventually, testCertificates, untilSomeoneWaitsOn } from '@feedback/test-support';
import type { ReceivedRequest } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { AMQP_URL, healthUrl, startSystem } from './system.js';
import { SecretBox } from '../../../services/webhook-worker/src/endpoints/signing-secrets.js';
import { readWorkerConfig } from '../../../services/webhook-worker/src/service.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let owner: Owner;
let appId: number;
let publicKey: string;
const receivers: HttpsReceiver[] = [];
const url = () => system.api.url;

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  ({ appId, publicKey } = await createApp(url(), owner.token, 'Webhook app'));
}, 60_000);

afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
  await system.worker.prisma.webhookEndpoint.deleteMany();
});

afterAll(async () => {
  await system?.stop();
});

async function receiver(kind: 'trusted' | 'untrusted' | 'otherName' = 'trusted') {
  const started = await HttpsReceiver.start(testCertificates()[kind]);
  receivers.push(started);
  return started;
}

async function endpointFor(target: HttpsReceiver, events: string[]) {
  const created = await call<{ endpoint: { id: string }; signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
    token: owner.token,
    body: { name: 'Test receiver', url: target.url(), events },
  });
  expect(created.status).toBe(201);
  return { id: created.body.endpoint.id, secret: created.body.signing_secret };
}

const suggest = (title: string) => call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title, user: { external_id: 'u-1', name: 'Ada' } } });

/**
 * Domain events the worker has finished with (acknowledged): what a test that something did not
 * happen waits for, instead of a pause that a slow machine could outlast.
 */
async function eventsHandled(): Promise<number> {
  const queue = topologyNames(system.namespace).workerDomainEventsQueue;
  const text = await (await fetch(`${healthUrl(system.worker)}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`feedback_messages_handled_total{queue="${queue}",outcome="ack"`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const untilEventsHandled = async (count: number, what: string) =>
  eventually(async () => ((await eventsHandled()) >= count ? true : undefined), { what });

function verify(request: ReceivedRequest, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-service-signature']));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest('hex');
  return expected === match[2] && Math.abs(Date.now() / 1000 - Number(match[1])) <= 300;
}

describe('webhook delivery', () => {
  it('POSTs the signed envelope with the service headers to a real HTTPS receiver', async () => {
    const target = await receiver();
    const { secret } = await endpointFor(target, ['suggestion.created']);
    await suggest('Signed');
    const [request] = await eventually(() => (target.received.length > 0 ? target.received : undefined), { what: 'a delivery' });
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-service-event']).toBe('suggestion.created');
    expect(request!.headers['x-service-delivery']).toBe(body['id']);
    expect(body).toMatchObject({ event: 'suggestion.created', app: { id: appId, public_key: publicKey }, data: { suggestion: { title: 'Signed' } } });
    // The envelope of specification 2.5, nothing beside it.
    expect(Object.keys(body).sort()).toEqual(['app', 'created_at', 'data', 'event', 'id']);
    expect(Object.keys(body['app'] as object).sort()).toEqual(['id', 'public_key']);
    expect(String(body['created_at'])).toMatch(/Z$/);
    // The event's time, as the api wrote it, not the time of the delivery.
    const { eventId } = await system.worker.prisma.delivery.findUniqueOrThrow({ where: { id: String(body['id']) } });
    const event = await system.api.prisma.outboxEvent.findUniqueOrThrow({ where: { eventId } });
    expect(body['created_at']).toBe((event.payload as { created_at: string }).created_at);
    expect(verify(request!, secret)).toBe(true);
  });

  it('sends an endpoint only the events it selected', async () => {
    const target = await receiver();
    const { id: endpointId } = await endpointFor(target, ['ticket.created']);
    const handledBefore = await eventsHandled();
    await suggest('Not for this endpoint');
    await call(url(), 'POST', '/widget/v1/tickets', { key: publicKey, body: { subject: 'For it', body: 'x', user: { external_id: 'u-2' } } });
    await eventually(() => (target.received.length > 0 ? true : undefined), { what: 'the ticket event' });
    // Both events fanned out: a delivery of the suggestion would have been written by now.
    await untilEventsHandled(handledBefore + 2, 'both events handled');
    expect(await system.worker.prisma.delivery.count({ where: { endpointId, eventType: 'suggestion.created' } })).toBe(0);
    expect(target.received.map((request) => request.headers['x-service-event'])).toEqual(['ticket.created']);
  });

  it('retries a failed attempt with the same id, signed afresh, until a 2xx, and records each attempt', async () => {
    const target = await receiver();
    target.answer = (_request, index) => ({ status: index < 2 ? 503 : 204 });
    const { id: endpointId, secret } = await endpointFor(target, ['suggestion.created']);
    await suggest('Flaky receiver');
    await eventually(() => (target.received.length >= 3 ? true : undefined), { what: 'three attempts', timeoutMs: 15_000 });
    const ids = new Set(target.received.map((request) => request.headers['x-service-delivery']));
    expect(ids.size).toBe(1);
    expect(target.received.every((request) => verify(request, secret))).toBe(true);
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' }, include: { attemptLog: { orderBy: { number: 'asc' } } } }).then((row) => row ?? undefined),
      { what: 'the delivery to be recorded as delivered' },
    );
    expect(delivery.attempts).toBe(3);
    expect(delivery.attemptLog.map((attempt) => attempt.responseCode)).toEqual([503, 503, 204]);
    expect(delivery.attemptLog[0]?.responseBodyStart).toBe('answer 503');
  });

  it('gives up after the fifth retry: six attempts, never a seventh, parked in the abandoned queue', async () => {
    const target = await receiver();
    target.answer = () => ({ status: 500 });
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Dead receiver');
    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'abandoned' } }).then((row) => row ?? undefined),
      { what: 'the delivery to be abandoned', timeoutMs: 20_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(target.received).toHaveLength(6);
    const connection = await amqplib.connect(AMQP_URL);
    try {
      const channel = await connection.createChannel();
      // Parked once the database says abandoned, confirmed a moment later.
      await eventually(async () => ((await channel.checkQueue(`${system.namespace}webhooks.abandoned`)).messageCount >= 1 ? true : undefined), {
        what: 'the delivery parked in the abandoned queue',
      });
    } finally {
      await connection.close();
    }
    // Redelivered by hand once the receiver is mended: one more attempt, same id, delivered.
    target.answer = () => ({ status: 200 });
    const abandoned = await system.worker.prisma.delivery.findFirstOrThrow({ where: { endpointId } });
    const again = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/deliveries/${abandoned.id}/redeliver`, { token: owner.token });
    expect(again.status).toBe(202);
    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { id: abandoned.id, status: 'delivered', attempts: 7 } }).then((row) => row ?? undefined),
      { what: 'the redelivery to be recorded' },
    );
    expect(target.received).toHaveLength(7);
    expect(new Set(target.received.map((request) => request.headers['x-service-delivery']))).toEqual(new Set([abandoned.id]));
  }, 30_000);

  it('records an answer whose start holds a NUL byte, and goes on with the schedule', async () => {
    const target = await receiver();
    target.answer = (_request, index) => ({ status: index === 0 ? 500 : 200, body: Buffer.from('bad\0answer') });
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('NUL in the answer');
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' }, include: { attemptLog: { orderBy: { number: 'asc' } } } }).then((row) => row ?? undefined),
      { what: 'delivery on the second attempt', timeoutMs: 15_000 },
    );
    expect(delivery.attemptLog.map((attempt) => [attempt.responseCode, attempt.responseBodyStart])).toEqual([
      [500, 'bad\uFFFDanswer'],
      [200, 'bad\uFFFDanswer'],
    ]);
    expect(target.received).toHaveLength(2);
  });

  it('counts a redirect as a failed attempt and never follows it', async () => {
    const target = await receiver();
    const elsewhere = await receiver();
    target.answer = (_request, index) => (index === 0 ? { status: 302, headers: { location: elsewhere.url() } } : { status: 200 });
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Redirected');
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'delivery on the second attempt', timeoutMs: 15_000 },
    );
    expect(delivery.attempts).toBe(2);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('counts an answer that does not come within the time limit (10 s) as a failed attempt, and retries it with the same id', async () => {
    const target = await receiver();
    target.answer = (_request, index) => (index === 0 ? { status: 204, delayMs: 10_500 } : { status: 204 });
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Answered too late');
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' }, include: { attemptLog: { orderBy: { number: 'asc' } } } }).then((row) => row ?? undefined),
      { what: 'delivery on the second attempt', timeoutMs: 30_000 },
    );
    expect(delivery.attemptLog.map((attempt) => [attempt.responseCode, attempt.error])).toEqual([
      [null, 'ETIMEDOUT: no complete answer within 10000 ms'],
      [204, null],
    ]);
    expect(new Set(target.received.map((request) => request.headers['x-service-delivery']))).toEqual(new Set([delivery.id]));
  }, 45_000);

  it.each([
    ['is not trusted: TLS is always verified', 'untrusted', /certificate|self.signed|SELF_SIGNED/i],
    ['a trusted CA signed for another name: the host name is verified too', 'otherName', /ERR_TLS_CERT_ALTNAME_INVALID|does not match|altnames/i],
  ] as const)('fails against a receiver whose certificate %s', async (_case, certificate, reason) => {
    const target = await receiver(certificate);
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest(`Refused: ${certificate}`);
    const attempt = await eventually(
      () => system.worker.prisma.deliveryAttempt.findFirst({ where: { delivery: { endpointId } } }).then((row) => row ?? undefined),
      { what: 'a failed attempt' },
    );
    expect(attempt.responseCode).toBeNull();
    expect(attempt.error).toMatch(reason);
    expect(target.received).toHaveLength(0);
  });

  it('says loudly at start-up that this worker may deliver to local hosts and trusts an extra CA', () => {
    // The test system turns both on (system.ts) to reach its local receivers; a worker
    // configured so by mistake says it at once, naming what it allows.
    const relaxed = system.logs.filter((line) => line.includes('OUTBOUND SAFETY RELAXED'));
    expect(relaxed).toHaveLength(1);
    expect(JSON.parse(relaxed[0]!)).toMatchObject({ level: 'warn', service: 'webhook-worker', allowedPrivateHosts: ['localhost'], extraCaFile: testCertificates().caFile });
  });

  it('signs with the new secret only, once the secret is rotated', async () => {
    const target = await receiver();
    const { id, secret } = await endpointFor(target, ['suggestion.created']);
    const rotated = await call<{ signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/rotate-secret`, { token: owner.token });
    await suggest('After rotation');
    const [request] = await eventually(() => (target.received.length > 0 ? target.received : undefined), { what: 'a delivery' });
    expect(verify(request!, rotated.body.signing_secret)).toBe(true);
    expect(verify(request!, secret)).toBe(false);
  });

  it('makes one delivery per endpoint however often the broker redelivers the event, and none to an endpoint created since', async () => {
    const target = await receiver();
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Once');
    await eventually(() => (target.received.length > 0 ? true : undefined), { what: 'the delivery' });
    const later = await receiver();
    const { id: laterId } = await endpointFor(later, ['suggestion.created']);
    const event = await system.api.prisma.outboxEvent.findFirstOrThrow({ where: { eventType: 'suggestion.created' }, orderBy: { position: 'desc' } });
    const handledBefore = await eventsHandled();
    const connection = await amqplib.connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      for (let copy = 0; copy < 3; copy += 1) {
        channel.publish(`${system.namespace}domain.events`, 'suggestion.created', Buffer.from(JSON.stringify(event.payload)), { messageId: event.eventId, persistent: true });
      }
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    await untilEventsHandled(handledBefore + 3, 'the three copies handled');
    expect(await system.worker.prisma.delivery.count({ where: { endpointId, eventId: event.eventId } })).toBe(1);
    expect(target.received).toHaveLength(1);
    expect(await system.worker.prisma.delivery.count({ where: { endpointId: laterId } })).toBe(0);
    expect(later.received).toHaveLength(0);
  });
});

describe('an event given again while the worker that took it first is still in its fan-out', () => {
  it.each([false, true])('attempts the deliveries that fan-out commits, though this handling\'s own statement began before they existed (an endpoint created meanwhile: %s)', async (endpointMeanwhile) => {
    const target = await receiver();
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Template');
    await eventually(() => (target.received.length === 1 ? true : undefined), { what: 'the first event delivered' });
    const template = await system.api.prisma.outboxEvent.findFirstOrThrow({ where: { eventType: 'suggestion.created' }, orderBy: { position: 'desc' } });
    const event: Record<string, unknown> & { id: string } = { ...(template.payload as Record<string, unknown>), id: randomUUID() };
    const deliveryId = randomUUID();
    // The first worker's fan-out, not yet committed (it died in it; its backend goes on).
    const first = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await first.connect();
    const connection = await amqplib.connect(AMQP_URL);
    try {
      await first.query('BEGIN');
      await first.query('INSERT INTO webhooks.received_events (event_id, event_type, app_id, occurred_at) VALUES ($1, $2, $3, $4)', [event.id, 'suggestion.created', appId, event['created_at']]);
      await first.query(
        `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload)
         VALUES ($1::uuid, $2, $3, 'suggestion.created', $4, $5::jsonb || jsonb_build_object('id', $6::text))`,
        [deliveryId, endpointId, event.id, appId, JSON.stringify(event), deliveryId],
      );
      // Then its statement makes a delivery the first one did not: to that endpoint.
      if (endpointMeanwhile) await endpointFor(await receiver(), ['suggestion.created']);
      // The broker gives the event to another worker (here, the system's).
      const channel = await connection.createConfirmChannel();
      channel.publish(`${system.namespace}domain.events`, 'suggestion.created', Buffer.from(JSON.stringify(event)), { messageId: event.id, persistent: true });
      await channel.waitForConfirms();
      await untilSomeoneWaitsOn(first, 'the second fan-out to wait for the first');
      await first.query('COMMIT');
      const [, again] = await eventually(() => (target.received.length === 2 ? target.received : undefined), { what: 'the delivery the first fan-out made' });
      expect(again!.headers['x-service-delivery']).toBe(deliveryId);
    } finally {
      await first.query('ROLLBACK').catch(() => undefined);
      await first.end();
      await connection.close();
    }
  });
});

describe('an endpoint deleted while its attempt is in flight', () => {
  it('ends that delivery quietly: the event is not handled again, so an endpoint created after it never gets it', async () => {
    const leaving = await receiver();
    const { id: leavingId } = await endpointFor(leaving, ['suggestion.created']);
    let deleted: Promise<unknown> | undefined;
    leaving.answer = () => {
      deleted = call(url(), 'DELETE', `/dashboard/v1/apps/${appId}/webhooks/${leavingId}`, { token: owner.token });
      return { status: 200, delayMs: 500 };
    };
    const handledBefore = await eventsHandled();
    const logsBefore = system.logs.length;
    await suggest('Endpoint leaves');
    await eventually(() => deleted, { what: 'the attempt to arrive and the endpoint to be deleted' });
    await deleted;
    const newcomer = await receiver();
    const { id: newcomerId } = await endpointFor(newcomer, ['suggestion.created']);
    // Acknowledged, once: had it been handed back instead, it would have been logged first.
    await untilEventsHandled(handledBefore + 1, 'the event handled');
    expect(sentBack('events', logsBefore)).toEqual([]);
    expect(await system.worker.prisma.delivery.count({ where: { endpointId: newcomerId } })).toBe(0);
    expect(newcomer.received).toHaveLength(0);
    expect(leaving.received).toHaveLength(1);
  });
});

/** The worker's webhook queues in this system's namespace, as it declares them. */
function workerQueues() {
  const { config } = readWorkerConfig(system.env);
  return webhookQueueNames(topologyNames(system.namespace), config.retryDelaysMs, config.throttleDelaysMs);
}

/**
 * A redelivery by hand as `redeliver` makes it, up to its commit: the delivery's row locked and
 * marked pending, its attempt `number` queued. Resolves once the worker that took the message
 * waits for the transaction; the caller commits or rolls back `transaction`, then calls `close`.
 */
async function redeliveryUncommitted(deliveryId: string, number: number, waiting: string) {
  const transaction = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
  await transaction.connect();
  const connection = await amqplib.connect(AMQP_URL);
  const close = async () => {
    await transaction.query('ROLLBACK').catch(() => undefined);
    await transaction.end();
    await connection.close();
  };
  try {
    await transaction.query('BEGIN');
    await transaction.query('SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [deliveryId]);
    await transaction.query("UPDATE webhooks.deliveries SET status = 'pending' WHERE id = $1", [deliveryId]);
    const channel = await connection.createConfirmChannel();
    channel.sendToQueue(workerQueues().deliver, Buffer.from(JSON.stringify({ delivery_id: deliveryId })), {
      messageId: deliveryId,
      persistent: true,
      headers: { [ATTEMPT_HEADER]: number, [MANUAL_HEADER]: true },
    });
    await channel.waitForConfirms();
    await untilSomeoneWaitsOn(transaction, waiting);
  } catch (error) {
    await close();
    throw error;
  }
  return { transaction, close };
}

/** Lines the worker logged, since `from`, about handing a message of `queue` back to it after a failure. */
const sentBack = (queue: 'events' | 'deliver', from: number) => {
  const name = queue === 'events' ? topologyNames(system.namespace).workerDomainEventsQueue : workerQueues().deliver;
  return system.logs.slice(from).filter((line) => line.includes('will be redelivered') && line.includes(`"queue":"${name}"`));
};

describe('a first attempt that cannot be made or recorded', () => {
  it('holds back only its own delivery when no configured key opens its secret: the event is handled once, and it goes once its secret is rotated', async () => {
    const healthy = await receiver();
    const locked = await receiver();
    await endpointFor(healthy, ['suggestion.created']);
    const { id: lockedId } = await endpointFor(locked, ['suggestion.created']);
    // Sealed under a key this worker was never given.
    const sealedElsewhere = new SecretBox(randomBytes(32).toString('base64')).seal('whsec_elsewhere');
    await system.worker.prisma.webhookEndpoint.update({ where: { id: lockedId }, data: { secretEncrypted: sealedElsewhere } });
    const logsBefore = system.logs.length;
    await suggest('One endpoint locked out');
    await eventually(() => (healthy.received.length === 1 ? true : undefined), { what: 'the healthy endpoint\'s delivery' });
    // Long enough for the event to come back twice, had it been sent back (a second's pause each).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(sentBack('events', logsBefore)).toEqual([]);
    // It waits on the throttle ladder, unsent, rather than go round the deliver queue holding one of its slots.
    expect(sentBack('deliver', logsBefore)).toEqual([]);
    expect(system.logs.slice(logsBefore).some((line) => line.includes('no configured key opens'))).toBe(true);
    expect(healthy.received).toHaveLength(1);
    expect(locked.received).toHaveLength(0);

    const rotated = await call<{ signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${lockedId}/rotate-secret`, { token: owner.token });
    // Within a rung or two of the ladder (1, 5, then 30 s).
    const [arrived] = await eventually(() => (locked.received.length >= 1 ? locked.received : undefined), { what: 'the held delivery, once the secret opens', timeoutMs: 40_000 });
    expect(verify(arrived!, rotated.body.signing_secret)).toBe(true);
    expect(healthy.received).toHaveLength(1);
  }, 60_000);

  it('goes on alone through the deliver queue when its record fails: made again with the same id, the event handled once', async () => {
    const healthy = await receiver();
    const flaky = await receiver();
    // Answered later than the healthy one, so that the two records are not one statement.
    flaky.answer = () => ({ status: 200, delayMs: 300 });
    await endpointFor(healthy, ['suggestion.created']);
    const { id: flakyId } = await endpointFor(flaky, ['suggestion.created']);
    const database = system.worker.prisma;
    // The first record of an attempt to that endpoint fails, as one would with the database away for a moment.
    // A sequence counts the tries: unlike a row, it is not rolled back with the failed statement.
    await database.$executeRawUnsafe('CREATE SEQUENCE webhooks.test_fail_once');
    await database.$executeRawUnsafe(`
      CREATE FUNCTION webhooks.test_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM webhooks.deliveries WHERE id = NEW.delivery_id AND endpoint_id = '${flakyId}') THEN
          IF nextval('webhooks.test_fail_once') = 1 THEN
            RAISE EXCEPTION 'record refused by the test';
          END IF;
        END IF;
        RETURN NEW;
      END $$`);
    await database.$executeRawUnsafe('CREATE TRIGGER test_fail_once BEFORE INSERT ON webhooks.delivery_attempts FOR EACH ROW EXECUTE FUNCTION webhooks.test_fail_once()');
    try {
      const logsBefore = system.logs.length;
      await suggest('One record fails');
      const received = await eventually(() => (flaky.received.length >= 2 ? flaky.received : undefined), { what: 'the attempt made again', timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(sentBack('events', logsBefore)).toEqual([]);
      expect(system.logs.slice(logsBefore).filter((line) => line.includes('first attempt failed midway'))).toHaveLength(1);
      expect(new Set(received.map((request) => request.headers['x-service-delivery'])).size).toBe(1);
      expect(flaky.received).toHaveLength(2);
      expect(healthy.received).toHaveLength(1);
      const delivery = await database.delivery.findFirstOrThrow({ where: { endpointId: flakyId } });
      expect({ status: delivery.status, attempts: delivery.attempts }).toEqual({ status: 'delivered', attempts: 1 });
    } finally {
      await database.$executeRawUnsafe('DROP TRIGGER test_fail_once ON webhooks.delivery_attempts');
      await database.$executeRawUnsafe('DROP FUNCTION webhooks.test_fail_once()');
      await database.$executeRawUnsafe('DROP SEQUENCE webhooks.test_fail_once');
    }
  }, 30_000);
});

describe('a slow endpoint', () => {
  it('does not hold back deliveries to the others', async () => {
    const slow = await receiver();
    // Slower than the 1 s that marks an endpoint as struggling.
    slow.answer = () => ({ status: 200, delayMs: 1_500 });
    const fast = await receiver();
    await endpointFor(slow, ['suggestion.created']);
    await endpointFor(fast, ['suggestion.created']);
    for (let n = 0; n < 20; n += 1) await suggest(`Burst ${n}`);
    await eventually(() => (fast.received.length === 20 ? true : undefined), { what: 'all 20 at the fast endpoint', timeoutMs: 10_000 });
    // The slow one takes 1.5 s an attempt, at most 4 at once (PER_ENDPOINT_CONCURRENCY), 2 once
    // it is struggling; the rest wait in the throttle queues, not in the worker's slots. (About
    // 8 rounds of 2, each up to a second in the throttle queue: some 20 s, given room on a loaded
    // machine.)
    await eventually(() => (slow.received.length === 20 ? true : undefined), { what: 'all 20 at the slow endpoint too', timeoutMs: 60_000 });
    // The fast one was not held back behind it: its last came before the slow one's last.
    expect(fast.received[19]!.receivedAt).toBeLessThan(slow.received[19]!.receivedAt);
    expect(slow.mostInFlight).toBeGreaterThanOrEqual(2);
    expect(slow.mostInFlight).toBeLessThanOrEqual(4);
  }, 90_000);
});

describe('the production retry queues', () => {
  it('carry exactly the TTLs 300000, 900000, 2700000, 8100000 and 24300000 ms, dead-lettering back at least once; the throttle queues 1000, 5000 and 30000 ms; the abandoned queue is bounded', async () => {
    expect([...PRODUCTION_RETRY_DELAYS_MS]).toEqual([300_000, 900_000, 2_700_000, 8_100_000, 24_300_000]);
    expect([...PRODUCTION_THROTTLE_DELAYS_MS]).toEqual([1000, 5000, 30_000]);
    // What the worker runs with when not told otherwise.
    expect(readWorkerConfig({ ...system.env, WEBHOOK_RETRY_DELAYS_MS: undefined, WEBHOOK_THROTTLE_DELAYS_MS: undefined }).config).toMatchObject({
      retryDelaysMs: [...PRODUCTION_RETRY_DELAYS_MS],
      throttleDelaysMs: [...PRODUCTION_THROTTLE_DELAYS_MS],
    });
    const queues = webhookQueueNames(topologyNames(`${system.namespace}production-shape.`), PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS);
    const connection = await amqplib.connect(AMQP_URL);
    const channel = await connection.createConfirmChannel();
    try {
      await declareWebhookTopology(channel, queues);
      // The broker refuses to re-declare a queue with other arguments: declaring these exact ones succeeds.
      const expected = [
        ...PRODUCTION_RETRY_DELAYS_MS.map((delay, index) => ({ queue: queues.retries[index]!, delay })),
        ...PRODUCTION_THROTTLE_DELAYS_MS.map((delay, index) => ({ queue: queues.throttles[index]!, delay })),
      ];
      for (const { queue, delay } of expected) {
        expect(queue.delay).toBe(delay);
        await channel.assertQueue(queue.queue, {
          durable: true,
          arguments: {
            'x-queue-type': 'quorum',
            'x-message-ttl': delay,
            'x-dead-letter-exchange': '',
            'x-dead-letter-routing-key': queues.deliver,
            'x-dead-letter-strategy': 'at-least-once',
            'x-overflow': 'reject-publish',
          },
        });
      }
      // The operators' queue of abandoned deliveries is bounded: the newest 100,000, for 30 days.
      expect(ABANDONED_QUEUE_LIMITS).toEqual({ maxLength: 100_000, messageTtlMs: 2_592_000_000 });
      await channel.assertQueue(queues.abandoned, {
        durable: true,
        arguments: { 'x-queue-type': 'quorum', 'x-max-length': 100_000, 'x-overflow': 'drop-head', 'x-message-ttl': 2_592_000_000 },
      });
      const other = await connection.createChannel();
      other.on('error', () => undefined);
      await expect(other.assertQueue(queues.retries[0]!.queue, { durable: true, arguments: { 'x-queue-type': 'quorum', 'x-message-ttl': 1 } })).rejects.toThrow(/PRECONDITION_FAILED/);
    } finally {
      // Not the system's namespace: its clean-up would leave these durable queues behind.
      for (const { queue } of [{ queue: queues.deliver }, { queue: queues.abandoned }, ...queues.throttles, ...queues.retries]) await channel.deleteQueue(queue).catch(() => undefined);
      await connection.close().catch(() => undefined);
    }
  });
});

describe('from the dashboard', () => {
  it('Send test delivers a webhook.ping to that endpoint, from the member who pressed it', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['ticket.created']);
    const pressed = Date.now();
    const sent = await call<{ id: string; event: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/test`, { token: owner.token });
    const answered = Date.now();
    expect(sent.status).toBe(202);
    const [request] = await eventually(() => (target.received.length > 0 ? target.received : undefined), { what: 'the ping' });
    expect(request!.headers['x-service-event']).toBe('webhook.ping');
    const body = JSON.parse(request!.body) as { id: string; created_at: string; data: Record<string, unknown> };
    expect(body.id).toBe(sent.body.id);
    // The envelope of every event: the app's id and public key, the time the member pressed it.
    expect(Object.keys(body).sort()).toEqual(['app', 'created_at', 'data', 'event', 'id']);
    expect(body).toMatchObject({ event: 'webhook.ping', app: { id: appId, public_key: publicKey } });
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(pressed);
    expect(Date.parse(body.created_at)).toBeLessThanOrEqual(answered);
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.data).toMatchObject({
      endpoint_id: id,
      author: { external_id: null, name: 'Olive Owner' },
      sender: { type: 'member', external_id: null, name: 'Olive Owner' },
    });
  });

  it('Send test follows the retry schedule: a failed ping is retried with the same id', async () => {
    const target = await receiver();
    target.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    const { id } = await endpointFor(target, ['ticket.created']);
    const sent = await call<{ id: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/test`, { token: owner.token });
    expect(sent.status).toBe(202);
    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { id: sent.body.id, status: 'delivered', attempts: 2 } }).then((row) => row ?? undefined),
      { what: 'the ping delivered by its first retry', timeoutMs: 15_000 },
    );
    expect(target.received.map((request) => request.headers['x-service-delivery'])).toEqual([sent.body.id, sent.body.id]);
  });

  it('Send test refuses a sixth test while five are waiting or being retried', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['ticket.created']);
    const pings = Array.from({ length: 5 }, (_, n) => ({
      id: randomUUID(), endpointId: id, eventId: randomUUID(), eventType: 'webhook.ping', appId, payload: {}, status: n % 2 ? ('pending' as const) : ('retrying' as const),
    }));
    await system.worker.prisma.delivery.createMany({ data: pings });
    const press = () => call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/test`, { token: owner.token });
    const refused = await press();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_test_deliveries' });
    // One settles: the button works again.
    await system.worker.prisma.delivery.update({ where: { id: pings[0]!.id }, data: { status: 'abandoned' } });
    expect((await press()).status).toBe(202);
  });

  it('Send test counts presses made at the same moment: five go, the rest are refused', async () => {
    const target = await receiver();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Pings stay pending while their answers are held.
    target.answer = () => ({ status: 204, until: held });
    const { id } = await endpointFor(target, ['ticket.created']);
    try {
      const presses = await Promise.all(Array.from({ length: 8 }, () => call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/test`, { token: owner.token })));
      expect(presses.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    } finally {
      release();
    }
  });

  it('shows each delivery with its status, response code and attempts, and each attempt in detail', async () => {
    const target = await receiver();
    const page = '<html><script>alert(document.cookie)</script></html>';
    target.answer = (_request, index) => (index === 0 ? { status: 500 } : { status: 200, headers: { 'content-type': 'text/html' }, body: page });
    const { id } = await endpointFor(target, ['suggestion.created']);
    await suggest('History');
    const base = `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries`;
    const listed = await eventually(async () => {
      const answer = await call<{ items: Array<{ id: string; status: string; attempts: number; last_response_code: number }> }>(url(), 'GET', base, { token: owner.token });
      return answer.body.items[0]?.status === 'delivered' ? answer.body.items : undefined;
    }, { what: 'the delivered delivery', timeoutMs: 15_000 });
    expect(listed[0]).toMatchObject({ event: 'suggestion.created', status: 'delivered', attempts: 2, last_response_code: 200 });
    const detail = await call<{ attempt_log: Array<Record<string, unknown>> }>(url(), 'GET', `${base}/${listed[0]!.id}`, { token: owner.token });
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({ number: 1, response_code: 500, response_body_start: 'answer 500', duration_ms: expect.any(Number), started_at: expect.any(String) }),
      expect.objectContaining({ number: 2, response_code: 200, response_body_start: page }),
    ]);
    // The receiver's page comes back as JSON text, in an answer no browser would render or run.
    expect(detail.headers.get('content-type')).toMatch(/^application\/json/);
    expect(detail.headers.get('x-content-type-options')).toBe('nosniff');
    expect(detail.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('shows the latest 100 attempts of a delivery redelivered many times, oldest first', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['suggestion.created']);
    const deliveryId = randomUUID();
    await system.worker.prisma.delivery.create({
      data: { id: deliveryId, endpointId: id, eventId: randomUUID(), eventType: 'suggestion.created', appId, payload: {}, status: 'delivered', attempts: 105 },
    });
    await system.worker.prisma.deliveryAttempt.createMany({
      data: Array.from({ length: 105 }, (_, n) => ({ deliveryId, number: n + 1, startedAt: new Date(), durationMs: 3, responseCode: 200 })),
    });
    const detail = await call<{ delivery: { attempts: number }; attempt_log: Array<{ number: number }> }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries/${deliveryId}`, { token: owner.token });
    expect(detail.body.delivery.attempts).toBe(105);
    expect(detail.body.attempt_log.map((attempt) => attempt.number)).toEqual(Array.from({ length: 100 }, (_, n) => n + 6));
  });

  it('pages through the history without skipping deliveries made in the same millisecond', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['suggestion.created']);
    // As one fan-out statement makes them: the same created_at, to the millisecond.
    const createdAt = new Date();
    const made = Array.from({ length: 5 }, () => randomUUID());
    await system.worker.prisma.delivery.createMany({
      data: made.map((deliveryId) => ({ id: deliveryId, endpointId: id, eventId: randomUUID(), eventType: 'suggestion.created', appId, payload: {}, status: 'delivered' as const, attempts: 1, createdAt })),
    });
    const base = `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries?limit=2`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: Array<{ id: string }>; next_cursor: string | null } } = await call(url(), 'GET', cursor ? `${base}&cursor=${cursor}` : base, { token: owner.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((item) => item.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(made));
    const foreign = await call(url(), 'GET', `${base}&cursor=${randomUUID()}`, { token: owner.token });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: 'invalid_cursor' });
    expect((await call(url(), 'GET', `${base}&cursor=${'x'.repeat(201)}`, { token: owner.token })).body).toMatchObject({ error: 'invalid_cursor' });
    // Paging by time is gone: refused by name rather than answered with the first page again.
    const before = await call(url(), 'GET', `${base}&before=${new Date().toISOString()}`, { token: owner.token });
    expect(before.status).toBe(400);
    expect(before.body).toMatchObject({ error: 'validation_failed', field: '/before' });
    expect((await call(url(), 'GET', `${base.replace('limit=2', 'limit=0')}`, { token: owner.token })).body).toMatchObject({ error: 'validation_failed', field: '/limit' });
  });

  it('filters the history by status and by event, and pages through what the filter keeps', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['suggestion.created', 'ticket.created']);
    const made = (status: 'delivered' | 'abandoned' | 'retrying', eventType: string) => ({
      id: randomUUID(), endpointId: id, eventId: randomUUID(), eventType, appId, payload: {}, status, attempts: 1,
    });
    const rows = [
      made('delivered', 'suggestion.created'),
      made('abandoned', 'suggestion.created'),
      made('abandoned', 'ticket.created'),
      made('retrying', 'ticket.created'),
      made('abandoned', 'suggestion.created'),
    ];
    await system.worker.prisma.delivery.createMany({ data: rows });
    const base = `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries`;
    const ids = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { items: Array<{ id: string }>; next_cursor: string | null } } = await call(url(), 'GET', `${base}?limit=1&${query}${cursor ? `&cursor=${cursor}` : ''}`, { token: owner.token });
        expect(page.status).toBe(200);
        seen.push(...page.body.items.map((item) => item.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return new Set(seen);
    };
    const where = (keep: (row: (typeof rows)[number]) => boolean) => new Set(rows.filter(keep).map((row) => row.id));
    expect(await ids('status=abandoned')).toEqual(where((row) => row.status === 'abandoned'));
    expect(await ids('status=abandoned,retrying&event=ticket.created')).toEqual(where((row) => row.eventType === 'ticket.created'));
    expect(await ids('status=delivered&status=retrying')).toEqual(where((row) => row.status !== 'abandoned'));
    expect(await ids('event=suggestion.created&status=abandoned')).toEqual(where((row) => row.status === 'abandoned' && row.eventType === 'suggestion.created'));
    // A delivery that leaves the filter between two pages (a retry delivered meanwhile) is the
    // cursor still, and the next page starts right after it.
    const abandoned = await call<{ items: Array<{ id: string }>; next_cursor: string }>(url(), 'GET', `${base}?limit=1&status=abandoned`, { token: owner.token });
    await system.worker.prisma.delivery.update({ where: { id: abandoned.body.next_cursor }, data: { status: 'delivered' } });
    const rest = await call<{ items: Array<{ id: string }> }>(url(), 'GET', `${base}?limit=10&status=abandoned&cursor=${abandoned.body.next_cursor}`, { token: owner.token });
    expect(rest.body.items).toHaveLength(2);
    const unknown = await call(url(), 'GET', `${base}?status=failed`, { token: owner.token });

    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'validation_failed', field: '/status' });
    expect(String(unknown.body['message'])).toContain('abandoned');
    expect((await call(url(), 'GET', `${base}?event=suggestion.deleted`, { token: owner.token })).body).toMatchObject({ error: 'validation_failed', field: '/event' });
  });

  it('does not redeliver a delivery whose payload an erasure replaced', async () => {
    const target = await receiver();
    const { id } = await endpointFor(target, ['suggestion.created']);
    await suggest('Soon erased');
    const delivered = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId: id, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'the delivery' },
    );
    // What the erasure of its author does to a delivery already made (recordErasure).
    await system.worker.prisma.delivery.update({ where: { id: delivered.id }, data: { payload: { erased: true } } });
    const again = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries/${delivered.id}/redeliver`, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'delivery_withheld' });
    expect(target.received).toHaveLength(1);
  });

  it('signs a redelivery by hand with the secret as it is once the redelivery commits, not as it was when the message arrived', async () => {
    const target = await receiver();
    const { id: endpointId, secret } = await endpointFor(target, ['suggestion.created']);
    await suggest('Redelivered across a rotation');
    const delivered = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'the delivery' },
    );
    // The worker takes the redelivery's message and waits for its commit; meanwhile the secret is rotated.
    const redelivery = await redeliveryUncommitted(delivered.id, 2, 'the worker to wait for the redelivery to commit');
    try {
      const rotated = await call<{ signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/rotate-secret`, { token: owner.token });
      expect(rotated.status).toBe(200);
      await redelivery.transaction.query('COMMIT');
      const [, again] = await eventually(() => (target.received.length === 2 ? target.received : undefined), { what: 'the redelivery' });
      expect(verify(again!, rotated.body.signing_secret)).toBe(true);
      expect(verify(again!, secret)).toBe(false);
    } finally {
      await redelivery.close();
    }
  });

  it('redelivers by hand with the same id, once a delivery has settled', async () => {
    const target = await receiver();
    const { id, secret } = await endpointFor(target, ['suggestion.created']);
    await suggest('Again please');
    await eventually(() => (target.received.length === 1 ? true : undefined), { what: 'the first delivery' });
    const deliveries = await eventually(async () => {
      const answer = await call<{ items: Array<{ id: string; status: string }> }>(url(), 'GET', `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries`, { token: owner.token });
      return answer.body.items[0]?.status === 'delivered' ? answer.body.items : undefined;
    }, { what: 'delivered' });
    // A new second before the redelivery, so that a signature kept from the first attempt would
    // show: each attempt is signed when it is sent.
    const signedAt = (request: ReceivedRequest) => Number(/^t=(\d+),/.exec(String(request.headers['x-service-signature']))?.[1]);
    while (Math.floor(Date.now() / 1000) <= signedAt(target.received[0]!)) await new Promise((resolve) => setTimeout(resolve, 50));
    // Pressed twice while the redelivery is under way (its answer held back): one redelivery,
    // the other press told it is in progress.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    target.answer = () => ({ status: 200, until: held });
    const redeliver = () => call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${id}/deliveries/${deliveries[0]!.id}/redeliver`, { token: owner.token });
    const presses = await Promise.all([redeliver(), redeliver()]);
    release();
    expect(presses.map((press) => press.status).sort()).toEqual([202, 409]);
    expect(presses.find((press) => press.status === 409)?.body).toMatchObject({ error: 'delivery_in_progress' });
    await eventually(() => (target.received.length === 2 ? true : undefined), { what: 'the redelivery' });
    expect(target.received[1]!.headers['x-service-delivery']).toBe(target.received[0]!.headers['x-service-delivery']);
    expect(signedAt(target.received[1]!)).toBeGreaterThan(signedAt(target.received[0]!));
    expect(target.received.every((request) => verify(request, secret))).toBe(true);
    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { id: deliveries[0]!.id, status: 'delivered', attempts: 2 } }).then((row) => row ?? undefined),
      { what: 'the redelivery recorded' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.received).toHaveLength(2);
  });

  it('does not make a redelivery by hand whose transaction rolled back, though its message was queued', async () => {
    const target = await receiver();
    const { id: endpointId } = await endpointFor(target, ['suggestion.created']);
    await suggest('Not again');
    await eventually(() => (target.received.length === 1 ? true : undefined), { what: 'the first delivery' });
    const delivery = await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId, status: 'delivered' } }).then((row) => row ?? undefined),
      { what: 'delivered' },
    );
    // Its transaction then rolls back (its confirm, say, came only after the transaction had given up).
    const redelivery = await redeliveryUncommitted(delivery.id, 2, 'the worker to wait for the redelivery\'s transaction');
    try {
      const logsBefore = system.logs.length;
      await redelivery.transaction.query('ROLLBACK');
      await eventually(() => (system.logs.slice(logsBefore).some((line) => line.includes('redelivery by hand dropped')) ? true : undefined), { what: 'the message dropped' });
    } finally {
      await redelivery.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.received).toHaveLength(1);
    expect(await system.worker.prisma.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
