import { integer, list, loadConfig, oneOf, string, url } from '@feedback/config';

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
  SIGNING_SECRET_ENCRYPTION_KEY: string({
    description: 'AES-256 key (32 bytes, base64) that seals webhook signing secrets at rest',
    secret: true,
  }),
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: list({
    description: 'host names allowed to be local or private (local test receivers only)',
    default: [],
  }),
  WEBHOOK_EXTRA_CA_FILE: string({ description: 'an extra CA certificate (PEM file) to trust (local test receivers only)', default: '' }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface WorkerConfig {
  databaseUrl: string;
  amqpUrl: string;
  brokerNamespace: string;
  healthPort: number;
  eventPrefetch: number;
  signingSecretEncryptionKey: string;
  allowedPrivateHosts: string[];
  extraCaFile: string;
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
    signingSecretEncryptionKey: v.SIGNING_SECRET_ENCRYPTION_KEY,
    allowedPrivateHosts: v.WEBHOOK_ALLOWED_PRIVATE_HOSTS.map((host) => host.toLowerCase()),
    extraCaFile: v.WEBHOOK_EXTRA_CA_FILE,
    logLevel: v.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
