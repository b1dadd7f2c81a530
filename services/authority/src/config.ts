import { integer, loadConfig, oneOf, string, url } from '@feedback/config';

/** Every environment variable the authority reads, validated at start-up. */
export const authorityEnvironment = {
  DATABASE_URL: url({
    description: 'PostgreSQL URL; the authority keeps its tables in schema "authority"',
    protocols: ['postgresql', 'postgres'],
  }),
  AMQP_URL: url({ description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  BROKER_NAMESPACE: string({ description: 'prefix of every exchange and queue name', default: '' }),
  HEALTH_PORT: integer({ description: 'port of the health endpoints', default: 3001, min: 0, max: 65535 }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface AuthorityConfig {
  databaseUrl: string;
  amqpUrl: string;
  brokerNamespace: string;
  healthPort: number;
  logLevel: string;
}

export function readAuthorityConfig(env: Record<string, string | undefined> = process.env) {
  const loaded = loadConfig(authorityEnvironment, env);
  const values = loaded.values;
  const config: AuthorityConfig = {
    databaseUrl: values.DATABASE_URL,
    amqpUrl: values.AMQP_URL,
    brokerNamespace: values.BROKER_NAMESPACE,
    healthPort: values.HEALTH_PORT,
    logLevel: values.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
