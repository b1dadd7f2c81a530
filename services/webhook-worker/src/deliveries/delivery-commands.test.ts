import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, topologyNames } from '@feedback/messaging';
import { PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS, webhookQueueNames } from '../queues/webhook-topology.js';
import { createMigratedTestDatabase, freePort } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import winston from 'winston';
import { connectWorkerDatabase, migrateWorkerDatabase } from '../database.js';
import type { WorkerDatabase } from '../database.js';
import { deliveryCommands } from './delivery-commands.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
const queues = webhookQueueNames(topologyNames('unreachable.'), PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS);
const owner = { team_id: randomUUID(), app_id: 1, plan: 'pro' as const, plan_version: 1, grant: 'verified before the command runs (access/management-grants.ts)' };
let database: MigratedTestDatabase;
let worker: WorkerDatabase;
let broker: Broker;
let publisher: ConfirmedPublisher;
let endpointId: string;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  worker = connectWorkerDatabase(database.url, logger, 2);
  // A broker that is not there: every publish waits out its confirm timeout and fails.
  broker = Broker.connect({ url: `amqp://guest:guest@127.0.0.1:${await freePort()}`, connectionName: 'unreachable', logger, reconnectSeconds: 0.2 });
  publisher = new ConfirmedPublisher(broker, { name: 'unreachable', timeoutMs: 200 });
  endpointId = await insertEndpoint(database.pool, { teamId: owner.team_id });
}, 60_000);

afterAll(async () => {
  await publisher?.close();
  await broker?.close();
  await worker?.prisma.$disconnect();
  await worker?.pool.end();
  await database?.drop();
});

describe('a delivery from the dashboard the broker does not take', () => {
  const commands = () => deliveryCommands(worker.prisma, publisher, queues, logger);
  // A caller with little time left: the redelivery waits for its confirm 300 ms (see redeliver).
  const call = { remainingMs: () => 1_300, throwIfCallerGone: () => undefined };

  it('is answered service_unavailable (503, to press again), and changes nothing: Send test leaves no ping, a redelivery leaves the delivery settled', async () => {
    await expect(commands().sendTest({ owner, endpoint_id: endpointId, public_key: 'pk_live_test', member_name: 'Sam' })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(await worker.prisma.delivery.count({ where: { endpointId, eventType: 'webhook.ping' } })).toBe(0);

    const id = randomUUID();
    await database.pool.query(
      `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts)
       VALUES ($1, $2, $3, 'suggestion.created', 1, '{}', 'delivered', 1)`,
      [id, endpointId, randomUUID()],
    );
    await expect(commands().redeliver({ owner, endpoint_id: endpointId, delivery_id: id }, call)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(await worker.prisma.delivery.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
