import { connect as connectTcp } from 'node:net';

/**
 * Where the tests find PostgreSQL and RabbitMQ, in this order: the URLs in the environment
 * (TEST_POSTGRES_URL, TEST_AMQP_URL), the local default ports, or containers started with
 * testcontainers where a Docker engine runs.
 */
export interface TestInfrastructure {
  /** A superuser URL for the `postgres` database; each test file creates its own database. */
  postgresUrl: string;
  amqpUrl: string;
  /** The id of the RabbitMQ container these tests started, if they started one. */
  amqpContainerId?: string;
  stop(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgresql://postgres@127.0.0.1:5432/postgres';
const LOCAL_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectTcp({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function resolveTestInfrastructure(
  env: Record<string, string | undefined> = process.env,
): Promise<TestInfrastructure> {
  const stops: Array<() => Promise<unknown>> = [];
  let postgresUrl = env['TEST_POSTGRES_URL'];
  let amqpUrl = env['TEST_AMQP_URL'];
  let amqpContainerId = env['TEST_AMQP_CONTAINER_ID'];
  if (!postgresUrl) {
    if (await reachable(LOCAL_POSTGRES)) postgresUrl = LOCAL_POSTGRES;
    else {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      stops.push(() => container.stop());
      postgresUrl = container.getConnectionUri().replace(/\/[^/]*$/, '/postgres');
    }
  }
  if (!amqpUrl) {
    if (await reachable(LOCAL_AMQP)) amqpUrl = LOCAL_AMQP;
    else {
      const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
      const container = await new RabbitMQContainer('rabbitmq:3.13-alpine').start();
      stops.push(() => container.stop());
      amqpUrl = container.getAmqpUrl();
      amqpContainerId = container.getId();
    }
  }
  return {
    postgresUrl,
    amqpUrl,
    ...(amqpContainerId ? { amqpContainerId } : {}),
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

/**
 * Jest global setup (jest.config.js points here): resolves the infrastructure once per run, and
 * test workers inherit the URLs through the environment. Jest loads this file without the
 * workspace's module mapping, so it imports nothing of ours.
 */
export default async function globalSetup(): Promise<void> {
  const infrastructure = await resolveTestInfrastructure();
  process.env['TEST_POSTGRES_URL'] = infrastructure.postgresUrl;
  process.env['TEST_AMQP_URL'] = infrastructure.amqpUrl;
  if (infrastructure.amqpContainerId) process.env['TEST_AMQP_CONTAINER_ID'] = infrastructure.amqpContainerId;
  (globalThis as { __testInfrastructure?: unknown }).__testInfrastructure = infrastructure;
}
