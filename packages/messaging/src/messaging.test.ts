import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineContract } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { TcpProxy, createTestNamespace, deleteBrokerObjects, eventually, freePort } from '@feedback/test-support';
import amqplib from 'amqplib';
import type { ConfirmChannel } from 'amqplib';
import winston from 'winston';
import { Registry } from 'prom-client';
import { deliveriesSoFar } from './consumer.js';
import { AcknowledgedBroadcast, Broker, ConfirmedPublisher, QUORUM_QUEUE, RpcClient, RpcClientClosedError, RpcError, RpcNoServiceError, RpcTimeoutError, UnroutableMessageError, declareExchanges, serveRpc, startConsumer, topologyNames } from './index.js';

const amqpUrl = process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const names = topologyNames(createTestNamespace());
const queue = `${names.namespace}probe`;
const probeContract = defineContract('probe', {
  type: 'object',
  required: ['n'],
  additionalProperties: false,
  properties: { n: { type: 'integer' } },
} as const);

let proxy: TcpProxy;
let broker: Broker;

beforeAll(async () => {
  const target = new URL(amqpUrl);
  proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5672) });
  broker = Broker.connect({ url: proxy.urlFor(amqpUrl), connectionName: 'messaging-test', logger, reconnectSeconds: 0.2 });
  await broker.waitUntilConnected(5000);
});

afterAll(async () => {
  await broker.close();
  await proxy.close();
  await deleteBrokerObjects(amqpUrl, {
    queues: [queue, names.rpcQueue('authority'), names.rpcQueue('authority', 'hot')],
    exchanges: [names.domainEvents, names.authorityEvents, names.rpcExchange],
  });
});

/** A service's RPC queue of one lane as serveRpc declares it, bound to the RPC exchange by its name. */
async function declareRpcQueueByHand(channel: amqplib.Channel, of: ReturnType<typeof topologyNames>, lane: 'hot' | 'commands', options: amqplib.Options.AssertQueue = QUORUM_QUEUE): Promise<string> {
  const rpcQueue = of.rpcQueue('authority', lane);
  await channel.assertExchange(of.rpcExchange, 'topic', { durable: true });
  await channel.assertQueue(rpcQueue, options);
  await channel.bindQueue(rpcQueue, of.rpcExchange, rpcQueue);
  return rpcQueue;
}

/** The probe queue and its binding; publishers declare them too, so no test depends on one before it. */
const setupProbe = async (channel: ConfirmChannel) => {
  await declareExchanges(channel, names);
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(queue, names.domainEvents, 'probe.#');
};

/**
 * A consumer of a quorum queue of its own, noting each message's `n`, how many times it was set up
 * and the channel of its latest setup; `failFirstSetup` makes its first declaration fail.
 */
function probeConsumer(queue: string, { failFirstSetup = false } = {}) {
  const probe = { seen: [] as number[], setups: 0, channel: undefined as ConfirmChannel | undefined };
  const consumer = startConsumer(broker, logger, {
    queue,
    setup: async (channel) => {
      probe.setups += 1;
      probe.channel = channel;
      if (failFirstSetup && probe.setups === 1) throw new Error('declaration refused');
      await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    },
    contract: probeContract,
    handle: async ({ n }) => void probe.seen.push(n),
  });
  return { consumer, probe };
}

describe('messaging over a real broker', () => {
  it('answers RPC over direct reply-to and validates both ends', async () => {
    const server = serveRpc(broker, logger, {
      service: 'authority',
      lane: 'hot',
      names,
      handlers: {
        'authority.verifySecretKey': async ({ key_hash }) => {
          if (key_hash.startsWith('0')) throw new RpcError('unknown_key', 'No such key.');
          // An answer that breaks the method's result contract: the server's bug.
          if (key_hash.startsWith('f')) return { key_id: 'k1' } as never;
          return { key_id: 'k1', app: { id: 1, public_key: 'pk_live_x' }, team_id: 't1', plan: 'pro', scopes: ['tickets:read'], full_access: false };
        },
      },
    });
    const client = new RpcClient(broker, logger, { names, timeoutMs: 3000 });
    try {
      const result = await eventually(() => client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) }), { what: 'rpc answer' });
      expect(result.scopes).toEqual(['tickets:read']);
      await expect(client.call('authority.verifySecretKey', { key_hash: '0'.repeat(64) })).rejects.toMatchObject({ code: 'unknown_key' });
      // Not `contract_violation`, which callers answer as the client's bad request.
      await expect(client.call('authority.verifySecretKey', { key_hash: 'f'.repeat(64) })).rejects.toMatchObject({ code: 'internal_error' });
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it('answers a hot-lane call while every consumer of the commands lane is busy, from a queue and consumer of its own', async () => {
    const split = topologyNames(createTestNamespace());
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const commands = serveRpc(broker, logger, {
      service: 'authority',
      names: split,
      prefetch: 2,
      handlers: {
        'authority.signIn': async () => {
          started += 1;
          await stuck;
          throw new RpcError('invalid_credentials', 'The email or the password is wrong.');
        },
      },
    });
    const hot = serveRpc(broker, logger, {
      service: 'authority',
      lane: 'hot',
      names: split,
      handlers: { 'authority.registerApiInstance': async () => ({ lease_until: new Date().toISOString() }) },
    });
    const client = new RpcClient(broker, logger, { names: split, timeoutMs: 20_000 });
    const connection = await amqplib.connect(amqpUrl);
    try {
      await eventually(() => client.call('authority.registerApiInstance', { instance_id: '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11', cache_ttl_ms: 1000 }), { what: 'the hot lane' });
      // The commands lane consumes too before the sign-ins go: one sent before its queue is bound
      // would find no queue, and the lane would never fill.
      // A channel for each look: the broker closes one that asks for a queue not declared yet.
      await eventually(
        async () => {
          const channel = await connection.createChannel();
          channel.on('error', () => undefined);
          try {
            return (await channel.checkQueue(split.rpcQueue('authority'))).consumerCount > 0 ? true : undefined;
          } finally {
            await channel.close().catch(() => undefined);
          }
        },
        { what: 'the commands lane' },
      );
      const signIns = Array.from({ length: 6 }, () => client.call('authority.signIn', { email: 'a@example.com', password: 'twelve chars!' }).catch((error: unknown) => error));
      await eventually(() => (started === 2 ? true : undefined), { what: 'the commands lane full' });
      // Four sign-ins wait in their queue behind the two in hand; the lease renewal does not.
      await expect(client.call('authority.registerApiInstance', { instance_id: '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11', cache_ttl_ms: 1000 })).resolves.toHaveProperty('lease_until');
      expect(started).toBe(2);
      release();
      expect(await Promise.all(signIns)).toHaveLength(6);
    } finally {
      release();
      await connection.close();
      await client.close();
      await Promise.all([commands.stop(), hot.stop()]);
      await deleteBrokerObjects(amqpUrl, { queues: [split.rpcQueue('authority'), split.rpcQueue('authority', 'hot')], exchanges: [split.rpcExchange] });
    }
  });

  it("answers an older caller's hot-lane request sent to the commands queue, when told to, as a release before the lanes sends it", async () => {
    const older = topologyNames(createTestNamespace());
    const server = serveRpc(broker, logger, {
      service: 'authority',
      names: older,
      handlers: {},
      olderCallers: { 'authority.registerApiInstance': async () => ({ lease_until: new Date().toISOString() }) },
    });
    const connection = await amqplib.connect(amqpUrl);
    try {
      // What an api of that release publishes: the default exchange, the commands queue, direct reply-to.
      const channel = await connection.createChannel();
      const answered = new Promise<string>((resolve) => void channel.consume('amq.rabbitmq.reply-to', (message) => message && resolve(message.content.toString()), { noAck: true }));
      await eventually(async () => ((await channel.checkQueue(older.rpcQueue('authority'))).consumerCount > 0 ? true : undefined), { what: 'the server' });
      channel.sendToQueue(older.rpcQueue('authority'), Buffer.from(JSON.stringify({ instance_id: '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11', cache_ttl_ms: 1000 })), {
        type: 'authority.registerApiInstance',
        replyTo: 'amq.rabbitmq.reply-to',
        correlationId: 'older',
      });
      expect(JSON.parse(await answered)).toMatchObject({ ok: true, result: { lease_until: expect.any(String) } });
    } finally {
      await connection.close();
      await server.stop();
      await deleteBrokerObjects(amqpUrl, { queues: [older.rpcQueue('authority')], exchanges: [older.rpcExchange] });
    }
  });

  it('refuses to serve a method on the lane it does not belong to', () => {
    expect(() => serveRpc(broker, logger, { service: 'authority', names, handlers: { 'authority.verifySecretKey': async () => ({}) as never } })).toThrow(
      'authority.verifySecretKey is not of the commands lane',
    );
  });

  it('answers internal_error, not contract_violation, when a reply breaks the contract as the caller reads it (a malformed reply, or a result of another version)', async () => {
    // A server written by hand, so that it can answer what serveRpc never would.
    const elsewhere = topologyNames(createTestNamespace());
    const connection = await amqplib.connect(amqpUrl);
    const client = new RpcClient(broker, logger, { names: elsewhere, timeoutMs: 3000 });
    try {
      const channel = await connection.createChannel();
      const rpcQueue = await declareRpcQueueByHand(channel, elsewhere, 'hot', { exclusive: true });
      let reply: unknown;
      await channel.consume(rpcQueue, (message) => {
        if (!message) return;
        channel.sendToQueue(message.properties.replyTo as string, Buffer.from(JSON.stringify(reply)), { correlationId: message.properties.correlationId as string });
        channel.ack(message);
      });
      const ask = () => client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) });
      reply = { ok: true, result: { key_id: 'k1' } };
      await expect(eventually(() => ask().catch((error: unknown) => (error instanceof RpcError ? error : undefined)))).resolves.toMatchObject({ code: 'internal_error' });
      reply = { neither: 'ok nor error' };
      await expect(ask()).rejects.toMatchObject({ code: 'internal_error' });
    } finally {
      await client.close();
      await connection.close();
    }
  });

  it('times out an RPC call that nobody answers, with a stable code, and counts it as a timeout', async () => {
    const lonely = topologyNames(createTestNamespace());
    // The service's queue exists, but nothing takes from it (the service is stuck, or gone).
    const connection = await amqplib.connect(amqpUrl);
    const metrics = new Registry();
    const client = new RpcClient(broker, logger, { names: lonely, timeoutMs: 300, metrics });
    try {
      await declareRpcQueueByHand(await connection.createChannel(), lonely, 'hot');
      const call = client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) });
      await expect(call).rejects.toBeInstanceOf(RpcTimeoutError);
      await expect(call).rejects.not.toBeInstanceOf(RpcNoServiceError);
      await expect(call).rejects.toMatchObject({ code: 'rpc_timeout' });
      expect(await metrics.metrics()).toContain('feedback_rpc_call_duration_seconds_count{method="authority.verifySecretKey",outcome="timeout"} 1');
    } finally {
      await client.close();
      await (await connection.createChannel()).deleteQueue(lonely.rpcQueue('authority', 'hot'));
      await connection.close();
    }
  });

  it('ends the calls still waiting when their client closes, rather than leave their callers waiting for ever', async () => {
    const lonely = topologyNames(createTestNamespace());
    const connection = await amqplib.connect(amqpUrl);
    const client = new RpcClient(broker, logger, { names: lonely, timeoutMs: 60_000 });
    try {
      await declareRpcQueueByHand(await connection.createChannel(), lonely, 'hot');
      const call = client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) });
      await client.close();
      await expect(call).rejects.toBeInstanceOf(RpcClientClosedError);
      await expect(call).rejects.toMatchObject({ code: 'rpc_timeout' });
    } finally {
      await (await connection.createChannel()).deleteQueue(lonely.rpcQueue('authority', 'hot'));
      await connection.close();
    }
  });

  it('fails a broadcast whose publish fails, and leaves no wait behind that would stop the process', async () => {
    const unreachable = Broker.connect({ url: `amqp://guest:guest@127.0.0.1:${await freePort()}`, connectionName: 'unreachable', logger, reconnectSeconds: 0.2 });
    const broadcast = new AcknowledgedBroadcast(unreachable, { name: 'broadcast', replies: names.replies });
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      await expect(broadcast.send(names.authorityEvents, 'probe', {}, { expectedReceivers: ['api-1'], timeoutMs: 200 })).rejects.toThrow();
      // Past the acknowledgements' own time limit.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', note);
      await broadcast.close();
      await unreachable.close();
    }
  });

  it('fails at once an RPC call no queue takes (the service not started), as a timeout to callers, counted apart', async () => {
    const nobody = topologyNames(createTestNamespace());
    const metrics = new Registry();
    const client = new RpcClient(broker, logger, { names: nobody, timeoutMs: 5000, metrics });
    try {
      const call = client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) });
      // Only the broker's return makes this error; the time limit makes a plain RpcTimeoutError.
      await expect(call).rejects.toBeInstanceOf(RpcNoServiceError);
      await expect(call).rejects.toBeInstanceOf(RpcTimeoutError);
      await expect(call).rejects.toMatchObject({ code: 'rpc_timeout', message: expect.stringContaining(nobody.rpcQueue('authority', 'hot')) });
      expect(await metrics.metrics()).toContain('feedback_rpc_call_duration_seconds_count{method="authority.verifySecretKey",outcome="no_service"} 1');
    } finally {
      await client.close();
    }
  });

  it('tells a handler how long its caller waits, and when it has stopped waiting', async () => {
    const patient = topologyNames(createTestNamespace());
    const handled: Array<{ remainingAtStart: number; goneAtEnd: boolean; stillNeededRefused: boolean }> = [];
    const server = serveRpc(broker, logger, {
      service: 'authority',
      lane: 'hot',
      names: patient,
      handlers: {
        'authority.verifySecretKey': async ({ key_hash }, call) => {
          const answer = { key_id: 'k1', app: { id: 1, public_key: 'pk_live_x' }, team_id: 't1', plan: 'pro' as const, scopes: [], full_access: false };
          if (key_hash.startsWith('c')) return answer; // the warm-up
          const remainingAtStart = call.remainingMs();
          // Time is left, but not the 5 s this handler would still need.
          const stillNeededRefused = (() => {
            try {
              call.throwIfCallerGone(5000);
              return false;
            } catch (error) {
              return (error as RpcError).code === 'service_unavailable';
            }
          })();
          await new Promise((resolve) => setTimeout(resolve, 1200));
          let goneAtEnd = false;
          try {
            call.throwIfCallerGone();
          } catch (error) {
            goneAtEnd = (error as RpcError).code === 'service_unavailable';
          }
          handled.push({ remainingAtStart, goneAtEnd, stillNeededRefused });
          return answer;
        },
      },
    });
    const client = new RpcClient(broker, logger, { names: patient, timeoutMs: 1000 });
    const warm = new RpcClient(broker, logger, { names: patient, timeoutMs: 3000 });
    try {
      await eventually(() => warm.call('authority.verifySecretKey', { key_hash: 'c'.repeat(64) }), { what: 'the server to answer' });
      await expect(client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) })).rejects.toBeInstanceOf(RpcTimeoutError);
      await eventually(async () => (handled.length === 1 ? true : undefined), { what: 'the handler to end' });
      expect(handled[0]).toMatchObject({ goneAtEnd: true, stillNeededRefused: true });
      expect(handled[0]!.remainingAtStart).toBeGreaterThan(0);
      expect(handled[0]!.remainingAtStart).toBeLessThanOrEqual(1000);
    } finally {
      await warm.close();
      await client.close();
      await server.stop();
      await deleteBrokerObjects(amqpUrl, { queues: [patient.rpcQueue('authority', 'hot')], exchanges: [] });
    }
  });

  it('keeps requests in a quorum queue, and drops one nobody took before its caller gave up rather than answer it late', async () => {
    const late = topologyNames(createTestNamespace());
    const rpcQueue = late.rpcQueue('authority', 'hot');
    const connection = await amqplib.connect(amqpUrl);
    const handledKeys: string[] = [];
    let server: ReturnType<typeof serveRpc> | undefined;
    const client = new RpcClient(broker, logger, { names: late, timeoutMs: 300 });
    try {
      // The queue as the server declares it, with nobody consuming yet.
      const declaring = await connection.createChannel();
      await declareRpcQueueByHand(declaring, late, 'hot');
      await expect(client.call('authority.verifySecretKey', { key_hash: 'a'.repeat(64) })).rejects.toBeInstanceOf(RpcTimeoutError);
      await new Promise((resolve) => setTimeout(resolve, 300));
      server = serveRpc(broker, logger, {
        service: 'authority',
        lane: 'hot',
        names: late,
        handlers: {
          'authority.verifySecretKey': async ({ key_hash }) => {
            handledKeys.push(key_hash);
            return { key_id: 'k1', app: { id: 1, public_key: 'pk_live_x' }, team_id: 't1', plan: 'pro', scopes: [], full_access: false };
          },
        },
      });
      const patient = new RpcClient(broker, logger, { names: late, timeoutMs: 3000 });
      // One call: it waits in the queue until the server consumes (a retry could be handled twice).
      await patient.call('authority.verifySecretKey', { key_hash: 'b'.repeat(64) });
      await patient.close();
      expect(handledKeys).toEqual(['b'.repeat(64)]);
      // Declared as a classic queue, it would be refused: the server made it a quorum queue.
      const checking = await connection.createChannel();
      checking.on('error', () => undefined);
      await expect(checking.assertQueue(rpcQueue, { durable: true })).rejects.toThrow(/x-queue-type/);
    } finally {
      await client.close();
      await server?.stop();
      await connection.close().catch(() => undefined);
      await deleteBrokerObjects(amqpUrl, { queues: [rpcQueue], exchanges: [] });
    }
  });

  it('refuses a request of an at-most-once method that a lost server was given before, and answers a read-only one again', async () => {
    const lost = topologyNames(createTestNamespace());
    const connection = await amqplib.connect(amqpUrl);
    const client = new RpcClient(broker, logger, { names: lost, timeoutMs: 10_000 });
    const handled: string[] = [];
    let server: ReturnType<typeof serveRpc> | undefined;
    let hotServer: ReturnType<typeof serveRpc> | undefined;
    try {
      // A server that takes both requests, one from each lane, and loses its connection before answering.
      const doomed = await connection.createChannel();
      const taken: string[] = [];
      for (const lane of ['commands', 'hot'] as const) {
        await doomed.consume(await declareRpcQueueByHand(doomed, lost, lane), (message) => message && taken.push(message.properties.type as string));
      }
      const creation = client.call('authority.createApp', { session: 'a session token', name: 'Twice?' });
      const lookup = client.call('authority.verifySecretKey', { key_hash: 'c'.repeat(64) });
      await eventually(() => (taken.length === 2 ? true : undefined), { what: 'both requests taken' });
      await doomed.close();
      server = serveRpc(broker, logger, {
        service: 'authority',
        names: lost,
        handlers: {
          'authority.createApp': async () => {
            handled.push('createApp');
            throw new RpcError('forbidden', 'not reached');
          },
        },
      });
      hotServer = serveRpc(broker, logger, {
        service: 'authority',
        lane: 'hot',
        names: lost,
        handlers: {
          'authority.verifySecretKey': async () => {
            handled.push('verifySecretKey');
            return { key_id: 'k1', app: { id: 1, public_key: 'pk_live_x' }, team_id: 't1', plan: 'pro', scopes: [], full_access: false };
          },
        },
      });
      await expect(creation).rejects.toMatchObject({ code: 'service_unavailable' });
      await expect(lookup).resolves.toMatchObject({ key_id: 'k1' });
      expect(handled).toEqual(['verifySecretKey']);
    } finally {
      await client.close();
      await server?.stop();
      await hotServer?.stop();
      await connection.close().catch(() => undefined);
      await deleteBrokerObjects(amqpUrl, { queues: [lost.rpcQueue('authority'), lost.rpcQueue('authority', 'hot')], exchanges: [lost.rpcExchange] });
    }
  });

  it('recovers after the broker connection drops: topology is declared again and nothing confirmed is lost', async () => {
    const received: number[] = [];
    const consumer = startConsumer(broker, logger, {
      queue,
      setup: setupProbe,
      contract: probeContract,
      handle: async ({ n }) => {
        received.push(n);
      },
    });
    const publisher = new ConfirmedPublisher(broker, { name: 'probe-publisher', setup: (channel) => declareExchanges(channel, names), timeoutMs: 10_000 });
    try {
      await eventually(async () => {
        await publisher.publish(names.domainEvents, 'probe.one', { n: 1 });
        return received.length > 0 ? true : undefined;
      }, { what: 'first message' });

      proxy.interrupt();
      await eventually(() => (broker.connected ? undefined : true), { what: 'disconnect to be noticed' });
      // Published while the broker is unreachable: held until the connection returns, then confirmed.
      const pending = publisher.publish(names.domainEvents, 'probe.two', { n: 2 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      proxy.restore();
      await pending;

      await eventually(() => (received.includes(2) ? true : undefined), { what: 'message published during the outage' });
      expect(broker.connected).toBe(true);
    } finally {
      await publisher.close();
      await consumer.stop();
    }
  });

  it('sets a consumer up again when the broker closes its channel with an error, and is not ready meanwhile', async () => {
    const repaired = `${names.namespace}repaired`;
    const { consumer, probe } = probeConsumer(repaired);
    const { seen } = probe;
    const publisher = new ConfirmedPublisher(broker, { name: 'repair-test' });
    try {
      await eventually(async () => (await publisher.sendToQueue(repaired, { n: 1 }), seen.includes(1) || undefined), { what: 'first message consumed' });
      const broken = probe.channel!;
      // A channel-level error: the broker closes this channel, and the repair reconnects.
      await expect(broken.checkQueue(`${names.namespace}no-such-queue`)).rejects.toThrow(/NOT_FOUND/);
      expect(broker.healthy).toBe(false);
      await eventually(() => (broker.healthy && probe.channel !== broken) || undefined, { what: 'channel set up again' });
      await publisher.sendToQueue(repaired, { n: 2 });
      await eventually(() => seen.includes(2) || undefined, { what: 'message consumed after the repair' });
    } finally {
      await publisher.close();
      await consumer.stop();
      await deleteBrokerObjects(amqpUrl, { queues: [repaired], exchanges: [] });
    }
  });

  it("closes only that channel when the broker closes one with an error: the connection, and every other channel's work, go on until the repair", async () => {
    // Reconnects (and so the repair) far apart: a connection dropped by the error would stop the
    // consumer below for longer than the test waits.
    const patient = Broker.connect({ url: amqpUrl, connectionName: 'channel-error-test', logger, reconnectSeconds: 60 });
    const queue = `${names.namespace}unaffected`;
    const seen: number[] = [];
    const consumer = startConsumer(patient, logger, {
      queue,
      setup: async (channel) => void (await channel.assertQueue(queue, QUORUM_QUEUE)),
      contract: probeContract,
      handle: async ({ n }) => void seen.push(n),
    });
    const publisher = new ConfirmedPublisher(patient, { name: 'channel-error-publisher' });
    let victim: ConfirmChannel | undefined;
    const victimWrapper = patient.channel('victim', async (channel) => void (victim = channel));
    try {
      await patient.waitUntilConnected(5000);
      await eventually(async () => (await publisher.sendToQueue(queue, { n: 1 }), seen.includes(1) || undefined), { what: 'first message consumed' });
      await eventually(() => victim, { what: 'the victim channel' });
      await expect(victim!.checkQueue(`${names.namespace}no-such-queue`)).rejects.toThrow(/NOT_FOUND/);
      await publisher.sendToQueue(queue, { n: 2 });
      await eventually(() => seen.includes(2) || undefined, { what: 'a message consumed after the error, on the same connection', timeoutMs: 20_000 });
    } finally {
      await victimWrapper.close();
      await publisher.close();
      await consumer.stop();
      await patient.close();
      await deleteBrokerObjects(amqpUrl, { queues: [queue], exchanges: [] });
    }
  });

  it('consumes again after the broker cancels its consumer (its queue deleted), and is not ready meanwhile', async () => {
    const cancelled = `${names.namespace}cancelled`;
    const { consumer, probe } = probeConsumer(cancelled);
    const { seen } = probe;
    const publisher = new ConfirmedPublisher(broker, { name: 'cancel-test' });
    try {
      await eventually(async () => (await publisher.sendToQueue(cancelled, { n: 1 }), seen.includes(1) || undefined), { what: 'first message consumed' });
      // Deleting a queue cancels its consumers; the channel stays open.
      await deleteBrokerObjects(amqpUrl, { queues: [cancelled], exchanges: [] });
      await eventually(() => (broker.healthy ? undefined : true), { what: 'not ready while the consumer is gone' });
      await eventually(() => (probe.setups >= 2 && broker.healthy) || undefined, { what: 'consumer set up again' });
      await publisher.sendToQueue(cancelled, { n: 2 });
      await eventually(() => seen.includes(2) || undefined, { what: 'message consumed after the cancel' });
    } finally {
      await publisher.close();
      await consumer.stop();
      await deleteBrokerObjects(amqpUrl, { queues: [cancelled], exchanges: [] });
    }
  });

  it('tries a setup that failed again instead of leaving the consumer stopped', async () => {
    const retried = `${names.namespace}retried`;
    const { consumer, probe } = probeConsumer(retried, { failFirstSetup: true });
    const { seen } = probe;
    const publisher = new ConfirmedPublisher(broker, { name: 'retry-setup-test' });
    try {
      await eventually(() => (probe.setups >= 2 && broker.healthy) || undefined, { what: 'setup run again' });
      await publisher.sendToQueue(retried, { n: 3 });
      await eventually(() => seen.includes(3) || undefined, { what: 'message consumed' });
    } finally {
      await publisher.close();
      await consumer.stop();
      await deleteBrokerObjects(amqpUrl, { queues: [retried], exchanges: [] });
    }
  });

  it('fails a mandatory publish that no queue takes, instead of the broker confirming and dropping it', async () => {
    const unbound = topologyNames(createTestNamespace());
    const publisher = new ConfirmedPublisher(broker, { name: 'mandatory-test', setup: (channel) => declareExchanges(channel, unbound) });
    const boundQueue = `${unbound.namespace}bound`;
    try {
      await expect(publisher.publish(unbound.domainEvents, 'probe.lost', { n: 1 }, { mandatory: true })).rejects.toBeInstanceOf(UnroutableMessageError);
      // Without mandatory the broker confirms it, and nobody ever sees it.
      await expect(publisher.publish(unbound.domainEvents, 'probe.lost', { n: 2 })).resolves.toBeUndefined();
      await expect(publisher.sendToQueue(`${unbound.namespace}missing`, { n: 3 })).rejects.toBeInstanceOf(UnroutableMessageError);
      // The consumer's topology arrives: now a queue takes it.
      const connection = await amqplib.connect(amqpUrl);
      try {
        const declaring = await connection.createChannel();
        await declaring.assertQueue(boundQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await declaring.bindQueue(boundQueue, unbound.domainEvents, '#');
      } finally {
        await connection.close();
      }
      await expect(publisher.publish(unbound.domainEvents, 'probe.kept', { n: 5 }, { mandatory: true })).resolves.toBeUndefined();
    } finally {
      await publisher.close();
      await deleteBrokerObjects(amqpUrl, { queues: [boundQueue], exchanges: [unbound.domainEvents, unbound.authorityEvents] });
    }
  });

  it("gives a message its own time to live: it leaves a waiting queue sooner than the queue's, but never before those ahead of it", async () => {
    const namespace = createTestNamespace();
    const waiting = `${namespace}waiting`;
    const back = `${namespace}back`;
    const publisher = new ConfirmedPublisher(broker, { name: 'expiration-test' });
    const connection = await amqplib.connect(amqpUrl);
    try {
      const channel = await connection.createChannel();
      await channel.assertQueue(back, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await channel.assertQueue(waiting, {
        durable: true,
        arguments: { 'x-queue-type': 'quorum', 'x-message-ttl': 60_000, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': back, 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' },
      });
      const arrived: number[] = [];
      const expirations: unknown[] = [];
      await channel.consume(back, (message) => {
        if (!message) return;
        arrived.push(JSON.parse(message.content.toString()).n as number);
        expirations.push(message.properties.expiration);
        channel.ack(message);
      });
      // A queue lets messages expire only from its head: the second waits behind the first.
      await publisher.sendToQueue(waiting, { n: 1 }, { expirationMs: 300 });
      await publisher.sendToQueue(waiting, { n: 2 }, { expirationMs: 50 });
      await eventually(() => (arrived.length === 2 ? true : undefined), { what: "both back, long before the queue's minute", timeoutMs: 10_000 });
      expect(arrived).toEqual([1, 2]);
      // The broker takes the time to live off a message it dead-letters: it cannot expire where it goes.
      expect(expirations).toEqual([undefined, undefined]);
    } finally {
      await connection.close();
      await publisher.close();
      await deleteBrokerObjects(amqpUrl, { queues: [waiting, back], exchanges: [] });
    }
  });

  it('sends the frames written in one turn (publishes, acks) in one socket write (patches/amqplib@2.3.1.patch), and the broker takes them all', async () => {
    const connection = await amqplib.connect(amqpUrl, { noDelay: true });
    const corked = `${names.namespace}corked`;
    try {
      const channel = await connection.createConfirmChannel();
      await channel.assertQueue(corked, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      const socket = (connection as unknown as { connection: { stream: { _write: unknown; _writev: unknown } } }).connection.stream;
      const writes: number[] = [];
      for (const method of ['_write', '_writev'] as const) {
        const original = socket[method] as (this: unknown, ...args: unknown[]) => unknown;
        socket[method] = function (this: unknown, ...args: unknown[]) {
          writes.push(method === '_writev' ? (args[0] as unknown[]).length : 1);
          return original.apply(this, args);
        };
      }
      const confirmed = Array.from({ length: 5 }, (_, n) => new Promise<void>((resolve, reject) => {
        channel.sendToQueue(corked, Buffer.from(JSON.stringify({ n })), { persistent: true }, (error) => (error ? reject(error) : resolve()));
      }));
      await Promise.all(confirmed);
      // One write carrying the five publishes, not five.
      expect(writes).toEqual([5]);

      const taken: amqplib.ConsumeMessage[] = [];
      await channel.prefetch(5);
      await channel.consume(corked, (message) => message && taken.push(message));
      await eventually(() => (taken.length === 5 ? true : undefined), { what: 'five messages consumed' });
      writes.length = 0;
      for (const message of taken) channel.ack(message);
      await eventually(() => (writes.length > 0 ? true : undefined), { what: 'acks written' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(writes).toEqual([5]);
      // Five acks, one write; and the broker took every one of them.
      await eventually(async () => ((await channel.checkQueue(corked)).messageCount === 0 && (await channel.checkQueue(corked)).consumerCount === 1 ? true : undefined), { what: 'queue empty' });
    } finally {
      await connection.close();
      await deleteBrokerObjects(amqpUrl, { queues: [corked], exchanges: [] });
    }
  });

  it('rejects a message that breaks its contract instead of handing it to the handler', async () => {
    const seen: unknown[] = [];
    const consumer = startConsumer(broker, logger, {
      queue,
      setup: setupProbe,
      contract: probeContract,
      handle: async (body) => {
        seen.push(body);
      },
    });
    const publisher = new ConfirmedPublisher(broker, { name: 'probe-publisher-2', setup: setupProbe });
    try {
      await publisher.publish(names.domainEvents, 'probe.bad', { n: 'not a number' });
      await publisher.publish(names.domainEvents, 'probe.good', { n: 3 });
      await eventually(() => (seen.length > 0 ? true : undefined), { what: 'valid message' });
      expect(seen).toEqual([{ n: 3 }]);
    } finally {
      await publisher.close();
      await consumer.stop();
    }
  });
  it('redelivers a message its handler fails on, logs it as an error once it keeps failing, and counts each requeue', async () => {
    const lines: Array<{ level: string; message: string; deliveries?: number }> = [];
    const sink = new winston.transports.Console({ level: 'debug' });
    sink.log = (info: Record<string, unknown>, next: () => void) => {
      lines.push(info as (typeof lines)[number]);
      next();
    };
    let calls = 0;
    const metrics = new Registry();
    const consumer = startConsumer(broker, createLogger({ service: 'test', level: 'debug', transports: [sink] }), {
      queue,
      setup: setupProbe,
      contract: probeContract,
      requeueDelayMs: 5,
      metrics,
      handle: async () => {
        calls += 1;
        if (calls <= 10) throw new Error('the database is away');
      },
    });
    const publisher = new ConfirmedPublisher(broker, { name: 'probe-publisher-4', setup: setupProbe });
    try {
      await publisher.publish(names.domainEvents, 'probe.failing', { n: 5 });
      await eventually(() => (calls === 11 ? true : undefined), { what: 'the eleventh delivery', timeoutMs: 10_000 });
      const failures = lines.filter((line) => line.message.includes('message will be redelivered'));
      expect(failures.map((line) => [line.level, line.deliveries])).toEqual([
        ...Array.from({ length: 9 }, (_, n) => ['warn', n + 1]),
        ['error', 10],
      ]);
      const counted = await metrics.metrics();
      expect(counted).toContain(`feedback_messages_handled_total{queue="${queue}",outcome="requeue"} 10`);
      await eventually(async () => ((await metrics.metrics()).includes(`feedback_messages_handled_total{queue="${queue}",outcome="ack"} 1`) ? true : undefined), { what: 'the ack counted' });
    } finally {
      await publisher.close();
      await consumer.stop();
    }
  });

  it.each([
    ['a first delivery', undefined, 1],
    ['RabbitMQ before 4.3: every return counted in x-delivery-count', { 'x-delivery-count': 9 }, 10],
    ['RabbitMQ 4.3: nacks counted only in x-acquired-count', { 'x-delivery-count': 0, 'x-acquired-count': 9 }, 10],
    ['RabbitMQ 4.3: a consumer lost counts in both', { 'x-delivery-count': 2, 'x-acquired-count': 11 }, 12],
    ['a header that is not a number', { 'x-delivery-count': 'many' }, 1],
  ])('counts the deliveries of %s', (_case, headers, expected) => {
    expect(deliveriesSoFar(headers)).toBe(expected);
  });

  it('stops gracefully: takes no new message, finishes the one in flight and acknowledges it', async () => {
    const finished: number[] = [];
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const consumer = startConsumer(broker, logger, {
      queue,
      setup: setupProbe,
      contract: probeContract,
      handle: async ({ n }) => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished.push(n);
      },
    });
    const publisher = new ConfirmedPublisher(broker, { name: 'probe-publisher-3', setup: setupProbe });
    try {
      await publisher.publish(names.domainEvents, 'probe.slow', { n: 4 });
      await handlerStarted;
      await consumer.stop();
      expect(finished).toEqual([4]);
      // Acknowledged before the channel closed: nothing is left for the next consumer, which
      // would be given a message handed back before one published after it.
      const seenAfter: number[] = [];
      const next = startConsumer(broker, logger, { queue, setup: setupProbe, contract: probeContract, handle: async ({ n }) => void seenAfter.push(n) });
      await publisher.publish(names.domainEvents, 'probe.slow', { n: 5 });
      await eventually(() => (seenAfter.includes(5) ? true : undefined), { what: 'the message published after the stop' });
      await next.stop();
      expect(seenAfter).toEqual([5]);
    } finally {
      await publisher.close();
    }
  });
});
