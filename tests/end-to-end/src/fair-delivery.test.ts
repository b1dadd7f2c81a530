import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { topologyNames } from '@feedback/messaging';
import { webhookQueueNames } from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import { call, createApp, signUpTeam } from './dashboard.js';
import { AMQP_URL, healthUrl, startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { readWorkerConfig } from '../../../services/webhook-worker/src/service.js';

let system: RunningSystem;
let receiver: HttpsReceiver;

beforeAll(async () => {
  // The top rung is long enough to find a message waiting there.
  system = await startSystem({ PER_HOST_CONCURRENCY: '2', WEBHOOK_THROTTLE_DELAYS_MS: '200,60000' });
  receiver = await HttpsReceiver.start(testCertificates().trusted);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
});

describe('fair delivery across tenants', () => {
  it("keeps a host's requests in flight under its cap, however many endpoints point at it, and delivers the rest after", async () => {
    const team = await signUpTeam(system.api.url, 'pro');
    const { appId, publicKey } = await createApp(system.api.url, team.token);
    for (let n = 0; n < 6; n += 1) {
      const created = await call(system.api.url, 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
        token: team.token,
        body: { name: `Same host ${n}`, url: receiver.url(`/hooks/${n}`), events: ['suggestion.created'] },
      });
      expect(created.status).toBe(201);
    }
    let release!: () => void;
    const held = new Promise((resolve) => (release = () => resolve(undefined)));
    receiver.answer = () => ({ status: 200, until: held });
    const suggestion = await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'One event, six endpoints', user: { external_id: 'u1' } } });
    expect(suggestion.status).toBe(201);
    await eventually(() => (receiver.inFlight === 2 ? true : undefined), { what: 'two requests held at the receiver' });
    // The other four wait their turn rather than reach the host. Back from each wait to find the
    // host still full, they wait again before their deliveries are read.
    const unread = async () => Number(/^feedback_webhook_attempts_throttled_unread_total\{[^}]*\} (\d+)$/m.exec(await (await fetch(`${healthUrl(system.worker)}/metrics`)).text())?.[1] ?? 0);
    const before = await unread();
    await eventually(async () => ((await unread()) > before ? true : undefined), { what: 'an attempt turned away unread' });
    expect(receiver.received).toHaveLength(2);
    release();
    await eventually(() => (receiver.received.length === 6 ? true : undefined), { what: 'every delivery', timeoutMs: 20_000 });
    expect(receiver.mostInFlight).toBe(2);
  }, 60_000);

  it("sends a slow host's backlog of one event to wait as one message, and delivers each of it when the message comes back", async () => {
    const team = await signUpTeam(system.api.url, 'pro');
    const { appId, publicKey } = await createApp(system.api.url, team.token);
    const slow = await HttpsReceiver.start(testCertificates().trusted);
    try {
      for (let n = 0; n < 6; n += 1) {
        const created = await call(system.api.url, 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
          token: team.token,
          body: { name: `Slow host ${n}`, url: slow.url(`/hooks/${n}`), events: ['suggestion.created'] },
        });
        expect(created.status).toBe(201);
      }
      // Another app's event finds the host answering in over a second: it is slow from then on.
      const marker = await createApp(system.api.url, team.token, 'Marker app');
      expect((await call(system.api.url, 'POST', `/dashboard/v1/apps/${marker.appId}/webhooks`, {
        token: team.token,
        body: { name: 'Marker', url: slow.url('/marker'), events: ['suggestion.created'] },
      })).status).toBe(201);
      slow.answer = () => ({ status: 200, delayMs: 1100 });
      const widget = (key: string, title: string) => call(system.api.url, 'POST', '/widget/v1/suggestions', { key, body: { title, user: { external_id: 'u2' } } });
      expect((await widget(marker.publicKey, 'Marks the host slow')).status).toBe(201);
      await eventually(() => (slow.received.length === 1 && slow.inFlight === 0 ? true : undefined), { what: 'the marker delivered, slowly', timeoutMs: 20_000 });
      let release!: () => void;
      const held = new Promise((resolve) => (release = () => resolve(undefined)));
      slow.answer = () => ({ status: 200, until: held });
      const before = slow.received.length;
      expect((await widget(publicKey, 'Six deliveries, two slots')).status).toBe(201);
      await eventually(() => (slow.received.length - before === 2 ? true : undefined), { what: 'two requests held at the slow host' });

      // The four beyond the host's share wait on the top rung together.
      const { retryDelaysMs, throttleDelaysMs } = readWorkerConfig(system.env).config;
      const queues = webhookQueueNames(topologyNames(system.namespace), retryDelaysMs, throttleDelaysMs);
      const top = queues.throttleGroups.queue;
      const connection = await amqplib.connect(AMQP_URL);
      try {
        const channel = await connection.createChannel();
        const waiting = await eventually(async () => {
          const message = await channel.get(top, { noAck: false });
          return message === false ? undefined : message;
        }, { what: 'a message on the top rung', timeoutMs: 15_000 });
        const body = JSON.parse(waiting.content.toString()) as { delivery_ids?: string[] };
        expect(body.delivery_ids).toHaveLength(4);
        // Not on the single queues' top rung, which a worker of an earlier release reads.
        expect(await channel.checkQueue(queues.throttles.at(-1)!.queue)).toMatchObject({ messageCount: 0 });
        // The host answers the two held, then answers another app's event at once: it is slow no more.
        release();
        await eventually(() => (slow.inFlight === 0 ? true : undefined), { what: 'the two held answered' });
        slow.answer = () => ({ status: 200 });
        const beforeMarker = slow.received.length;
        expect((await widget(marker.publicKey, 'The host is quick again')).status).toBe(201);
        await eventually(() => (slow.received.length > beforeMarker && slow.inFlight === 0 ? true : undefined), { what: 'the marker delivered at once' });
        // As if its wait were over: the group goes back to its deliver queue, as the broker sends it.
        channel.sendToQueue(queues.deliverGroups, waiting.content, { headers: waiting.properties.headers, messageId: waiting.properties.messageId });
        channel.ack(waiting);
        expect(await channel.checkQueue(top)).toMatchObject({ messageCount: 0 });
      } finally {
        await connection.close();
      }
      await eventually(() => (new Set(slow.received.slice(before).map((request) => request.path).filter((path) => path.startsWith('/hooks/'))).size === 6 ? true : undefined), { what: 'each of the six delivered', timeoutMs: 30_000 });
    } finally {
      await slow.close();
    }
  }, 60_000);
});
