import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import type { Logger } from '@feedback/logging';
import { Broker, RpcClient, serveRpc, topologyNames } from '@feedback/messaging';
import { createTestNamespace, deleteBrokerObjects, eventually } from '@feedback/test-support';
import winston from 'winston';
import { ApiInstancePresence } from './api-instance-presence.js';

const amqpUrl = process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
const quiet = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const names = topologyNames(createTestNamespace());
let broker: Broker;

beforeAll(async () => {
  broker = Broker.connect({ url: amqpUrl, connectionName: 'presence-test', logger: quiet });
  await broker.waitUntilConnected(5000);
});

afterAll(async () => {
  await broker.close();
  await deleteBrokerObjects(amqpUrl, { queues: [names.rpcQueue('authority', 'hot')], exchanges: [names.rpcExchange] });
});

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger };
}

describe('ApiInstancePresence', () => {
  it('waits quietly for an authority not yet started, then holds its lease once it answers', async () => {
    const { lines, logger } = recordingLogger();
    const rpc = new RpcClient(broker, quiet, { names, timeoutMs: 2000 });
    // No authority has declared its queue on this broker yet.
    const presence = new ApiInstancePresence(rpc, logger, 60_000, 100);
    let authority: ReturnType<typeof serveRpc> | undefined;
    try {
      await eventually(() => (lines.length > 0 ? true : undefined), { what: 'the first registration to fail' });
      expect(lines[0]).toEqual({ level: 'info', message: 'waiting for the authority to start; keys are checked once it answers' });
      expect(presence.trustedUntil).toBe(Number.NEGATIVE_INFINITY);
      authority = serveRpc(broker, quiet, {
        service: 'authority',
        lane: 'hot',
        names,
        handlers: { 'authority.registerApiInstance': async () => ({ lease_until: new Date(Date.now() + 60_000).toISOString() }) },
      });
      await eventually(() => (presence.trustedUntil > Date.now() ? true : undefined), { what: 'the lease' });
      expect(lines.filter((line) => line.level !== 'info')).toEqual([]);
    } finally {
      // Stopped while its authority still answers: its unregistration would otherwise wait in the
      // queue, and reach the next test's authority first.
      await presence.stop();
      await authority?.stop();
      await rpc.close();
    }
  });

  it('ends its lease after a registration still on its way is answered, which would otherwise start it again', async () => {
    const calls: string[] = [];
    const authority = serveRpc(broker, quiet, {
      service: 'authority',
      lane: 'hot',
      names,
      handlers: {
        'authority.registerApiInstance': async () => {
          calls.push('register');
          await new Promise((resolve) => setTimeout(resolve, 300));
          calls.push('registered');
          return { lease_until: new Date(Date.now() + 60_000).toISOString() };
        },
        'authority.unregisterApiInstance': async () => {
          calls.push('unregister');
          return {};
        },
      },
    });
    const rpc = new RpcClient(broker, quiet, { names, timeoutMs: 2000 });
    try {
      const presence = new ApiInstancePresence(rpc, quiet, 60_000, 60_000);
      await eventually(() => (calls.includes('register') ? true : undefined), { what: 'the registration to arrive' });
      await presence.stop();
      expect(calls).toEqual(['register', 'registered', 'unregister']);
      expect(presence.trustedUntil).toBe(Number.NEGATIVE_INFINITY);
    } finally {
      await authority.stop();
      await rpc.close();
    }
  });
});
