import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topologyNames } from '@feedback/messaging';
import { webhookQueueNames } from '../../../services/webhook-worker/src/queues/webhook-topology.js';
import { HttpsReceiver, eventually, rabbitmqctl, testCertificates } from '@feedback/test-support';
import { call, createApp, signUpTeam } from './dashboard.js';
import { AMQP_URL, healthUrl, startSystem } from './system.js';
import type { RunningSystem } from './system.js';

/**
 * Restarts the real RabbitMQ, so it runs alone, after every other test (`pnpm jest:disruptive`).
 * A broker it cannot restart (not local, not a container these tests started) fails it.
 */
const RETRY_DELAYS_MS = [8000, 50, 50, 50, 50];

let system: RunningSystem;
let target: HttpsReceiver;

beforeAll(async () => {
  // The first retry waits long enough to be sitting in its queue while the broker restarts.
  system = await startSystem({ WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(',') });
  target = await HttpsReceiver.start(testCertificates().trusted);
}, 60_000);

afterAll(async () => {
  await target?.close();
  await system?.stop();
});

describe('a broker restart', () => {
  it('loses no queued retry: after the restart it is delivered, with the same id', async () => {
    const owner = await signUpTeam(system.api.url, 'pro');
    const app = await createApp(system.api.url, owner.token);
    const created = await call<{ endpoint: { id: string } }>(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
      token: owner.token,
      body: { name: 'Receiver', url: target.url(), events: ['suggestion.created'] },
    });
    target.answer = (_request, index) => ({ status: index === 0 ? 503 : 200 });
    await call(system.api.url, 'POST', '/widget/v1/suggestions', { key: app.publicKey, body: { title: 'Survives', user: { external_id: 'u-1' } } });
    await eventually(
      () => system.worker.prisma.delivery.findFirst({ where: { endpointId: created.body.endpoint.id, status: 'retrying' } }).then((row) => row ?? undefined),
      { what: 'the first attempt to fail' },
    );
    // The status is recorded before the retry is published: restarting in between would test the
    // worker's publisher, not the durable queue.
    const firstRetryQueue = webhookQueueNames(topologyNames(system.namespace), RETRY_DELAYS_MS, []).retries[0]!.queue;
    const connection = await amqplib.connect(AMQP_URL);
    try {
      const channel = await connection.createChannel();
      await eventually(async () => ((await channel.checkQueue(firstRetryQueue)).messageCount === 1 ? true : undefined), {
        what: 'the retry to be in its queue',
      });
    } finally {
      await connection.close();
    }

    await rabbitmqctl('stop_app');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await rabbitmqctl('start_app');

    for (const url of [system.api.url, healthUrl(system.authority), healthUrl(system.worker)]) {
      // Reconnected: the broker up, not only ready (the api stays ready on its key cache meanwhile).
      await eventually(
        async () => (((await (await fetch(`${url}/health/ready`)).json()) as { checks: { broker?: string } }).checks.broker === 'up' ? true : undefined),
        { what: `${url} reconnected`, timeoutMs: 30_000 },
      );
    }
    await eventually(() => (target.received.length >= 2 ? true : undefined), { what: 'the retry after the restart', timeoutMs: 30_000 });
    expect(target.received[1]!.headers['x-service-delivery']).toBe(target.received[0]!.headers['x-service-delivery']);
  }, 90_000);
});
