import { integer, loadConfig, oneOf, string, url } from '@feedback/config';

/** Every environment variable the worker reads, validated at start-up. */
export const workerEnvironment = {
  DATABASE_URL: url({
    description: 'PostgreSQL URL; the worker keeps its tables in schema "webhooks"',
    protocols: ['postgresql', 'postgres'],
  }),
  AMQP_URL: url({ description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  BROKER_NAMESPACE: string({ description: 'prefix of every exchange and queue name', default: '' }),
  HEALTH_PORT: integer({ description: 'port of the health endpoints', default: 3002, min: 0, max: 65535 }),
  EVENT_PREFETCH: integer({ description: 'domain events one worker handles at once', default: 50, min: 1, max: 1000 }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface WorkerConfig {
  databaseUrl: string;
  amqpUrl: string;
  brokerNamespace: string;
  healthPort: number;
  eventPrefetch: number;
  logLevel: string;
}

export function readWorkerConfig(env: Record<string, string | undefined> = process.env) {
  const loaded = loadConfig(workerEnvironment, env);
  const v = loaded.values;
  const config: WorkerConfig = {
    databaseUrl: v.DATABASE_URL,
    amqpUrl: v.AMQP_URL,
    brokerNamespace: v.BROKER_NAMESPACE,
    healthPort: v.HEALTH_PORT,
    eventPrefetch: v.EVENT_PREFETCH,
    logLevel: v.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
