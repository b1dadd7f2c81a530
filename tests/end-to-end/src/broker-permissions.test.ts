import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { topologyNames } from '@feedback/messaging';
import type { BrokerService } from '@feedback/messaging';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let names: ReturnType<typeof topologyNames>;

beforeAll(async () => {
  system = await startSystem();
  names = topologyNames(system.namespace);
});

afterAll(async () => {
  await system.stop();
});

/**
 * Runs `act` on a fresh channel of `service`'s login and answers how the broker took it: `ok`, or
 * the reply code with which it closed the channel (403: access refused).
 */
async function asService(service: BrokerService, act: (channel: amqplib.ConfirmChannel) => Promise<unknown>): Promise<'ok' | number> {
  const connection = await amqplib.connect(system.amqpUrls[service]);
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createConfirmChannel();
    const closed = new Promise<number>((resolve) => channel.on('error', (error: { code?: number }) => resolve(error.code ?? 0)));
    const outcome = await Promise.race([
      act(channel).then(
        () => channel.waitForConfirms().then(() => 'ok' as const),
        () => closed,
      ),
      closed,
    ]);
    return outcome;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

const publish = (exchange: string, routingKey: string) => (channel: amqplib.ConfirmChannel) =>
  new Promise<void>((resolve, reject) => channel.publish(exchange, routingKey, Buffer.from('{}'), {}, (error) => (error ? reject(error) : resolve())));

describe('broker logins', () => {
  it('gives each service a login of its own', () => {
    const users = Object.values(system.amqpUrls).map((url) => decodeURIComponent(new URL(url).username));
    expect(users).toEqual([`${system.namespace}api`, `${system.namespace}authority`, `${system.namespace}webhook-worker`]);
  });

  it("refuses the api's login the authority's queues: sign-in passwords and key checks cannot be read off them", async () => {
    expect(await asService('api', (channel) => channel.consume(names.rpcQueue('authority'), () => undefined))).toBe(403);
    expect(await asService('api', (channel) => channel.consume(names.rpcQueue('authority', 'hot'), () => undefined))).toBe(403);
    // Nor a queue of its own bound to the requests' exchange, nor to the domain events.
    expect(
      await asService('api', async (channel) => {
        const { queue } = await channel.assertQueue('', { exclusive: true });
        await channel.bindQueue(queue, names.rpcExchange, names.rpcQueue('authority'));
      }),
    ).toBe(403);
    expect(
      await asService('api', async (channel) => {
        const { queue } = await channel.assertQueue('', { exclusive: true });
        await channel.bindQueue(queue, names.domainEvents, '#');
      }),
    ).toBe(403);
  });

  it("refuses the api's login the worker's queues and the default exchange: no attempt or command goes round the worker's checks", async () => {
    expect(await asService('api', publish('', `${system.namespace}webhooks.deliver`))).toBe(403);
    expect(await asService('api', publish('', names.workerDomainEventsQueue))).toBe(403);
    expect(await asService('api', (channel) => channel.consume(names.rpcQueue('webhook-worker'), () => undefined))).toBe(403);
  });

  it("has no service answer an RPC request into a queue the caller names: the api cannot make the worker write to its own queues", async () => {
    // The abandoned deliveries' queue: nothing consumes it, so what reaches it stays to be counted.
    const abandoned = `${system.namespace}webhooks.abandoned`;
    const inspect = await amqplib.connect(system.amqpUrls['webhook-worker']);
    try {
      const queued = async () => (await (await inspect.createChannel()).checkQueue(abandoned)).messageCount;
      const before = await queued();
      // Two requests the worker answers at once: the first with `replyTo` naming that queue, then one with a proper reply address. Once the second is answered, so is the first.
      const requests = async (channel: amqplib.ConfirmChannel) => {
        const answered = new Promise<void>((resolve) => void channel.consume('amq.rabbitmq.reply-to', () => resolve(), { noAck: true }));
        const send = (replyTo: string) =>
          new Promise<void>((resolve, reject) =>
            channel.publish(names.rpcExchange, names.rpcQueue('webhook-worker'), Buffer.from('{}'), { type: 'webhook-worker.getEndpoint', replyTo, correlationId: replyTo }, (error) =>
              error ? reject(error) : resolve(),
            ),
          );
        await send(abandoned);
        await send('amq.rabbitmq.reply-to');
        await answered;
      };
      expect(await asService('api', requests)).toBe('ok');
      expect(await queued()).toBe(before);
    } finally {
      await inspect.close();
    }
  });

  it("refuses the api's login a key change: only the authority says a key is revoked or restored", async () => {
    expect(await asService('api', publish(names.authorityEvents, 'key.changed'))).toBe(403);
    expect(await asService('authority', publish(names.authorityEvents, 'key.changed'))).toBe('ok');
  });

  it('refuses every login but the api domain events: neither the authority nor the worker can publish one for the worker to sign', async () => {
    expect(await asService('webhook-worker', publish(names.domainEvents, 'suggestion.created'))).toBe(403);
    expect(await asService('authority', publish(names.domainEvents, 'suggestion.created'))).toBe(403);
    expect(await asService('api', publish(names.domainEvents, 'suggestion.created'))).toBe('ok');
  });

  it("refuses each login another service's RPC queue to consume, and the requests of a method it does not call", async () => {
    expect(await asService('webhook-worker', (channel) => channel.consume(names.rpcQueue('authority'), () => undefined))).toBe(403);
    expect(await asService('authority', (channel) => channel.consume(names.rpcQueue('webhook-worker'), () => undefined))).toBe(403);
    // Nor sends requests to a service it does not call: the authority calls none, the worker only the authority's hot lane.
    expect(await asService('authority', publish(names.rpcExchange, names.rpcQueue('authority')))).toBe(403);
    expect(await asService('authority', publish(names.rpcExchange, names.rpcQueue('webhook-worker')))).toBe(403);
    expect(await asService('webhook-worker', publish(names.rpcExchange, names.rpcQueue('authority')))).toBe(403);
    expect(await asService('webhook-worker', publish(names.rpcExchange, names.rpcQueue('authority', 'hot')))).toBe('ok');
  });

  it('lets only the authority say that a plan changed, and only the worker hear it', async () => {
    expect(await asService('authority', publish(names.authorityEvents, 'team.plan_changed'))).toBe('ok');
    expect(await asService('api', publish(names.authorityEvents, 'team.plan_changed'))).toBe(403);
    expect(await asService('webhook-worker', publish(names.authorityEvents, 'team.plan_changed'))).toBe(403);
    expect(await asService('api', (channel) => channel.consume(names.workerPlanChangesQueue, () => undefined))).toBe(403);
    // Nor may the worker bind its queue to the authority's other news.
    expect(await asService('webhook-worker', (channel) => channel.bindQueue(names.workerPlanChangesQueue, names.authorityEvents, 'key.changed'))).toBe(403);
  });
});
