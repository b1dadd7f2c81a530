import { createPrivateKey } from 'node:crypto';
import { integer, loadConfig, oneOf, string, url } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';

/** Every environment variable the authority reads, validated at start-up. */
export const authorityEnvironment = {
  DATABASE_URL: url({
    description: 'PostgreSQL URL; the authority keeps its tables in schema "authority"',
    protocols: ['postgresql', 'postgres'],
  }),
  DATABASE_POOL_SIZE: databasePoolSizeVariable,
  AMQP_URL: url({ description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  BROKER_NAMESPACE: string({ description: 'prefix of every exchange and queue name', default: '' }),
  HEALTH_PORT: integer({ description: 'port of the health endpoints', default: 3001, min: 0, max: 65535 }),
  SESSION_SIGNING_KEY: string({
    description: 'Ed25519 private key (PKCS#8 PEM) that signs member session tokens',
    secret: true,
    check: (value) => void sessionSigningKeyOf(value),
  }),
  SESSION_TTL_SECONDS: integer({
    description: 'lifetime of a member session token; a session not renewed for this long has expired',
    default: 900,
    min: 60,
    max: 86_400,
  }),
  SESSION_MAX_SECONDS: integer({
    description: 'absolute end of a member session, counted from sign-in, however often it is renewed',
    default: 43_200,
    min: 60,
    max: 2_592_000,
  }),
  KEY_CHANGE_TIMEOUT_MS: integer({
    description: 'how long a key change waits for every api instance to confirm it',
    default: 3000,
    min: 100,
  }),
  PASSWORD_HASHING_CONCURRENCY: integer({ description: 'passwords hashed or checked at once (sign-up, sign-in, adding a member)', default: 2, min: 1, max: 64 }),
  PASSWORD_HASHING_QUEUE: integer({
    description: 'passwords that may wait for a turn to be hashed; past that, sign-ups and sign-ins answer 429 at once instead of waiting',
    default: 16,
    min: 0,
  }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface AuthorityConfig {
  databaseUrl: string;
  databasePoolSize: number;
  amqpUrl: string;
  brokerNamespace: string;
  healthPort: number;
  sessionSigningKey: string;
  sessionTtlSeconds: number;
  sessionMaxSeconds: number;
  keyChangeTimeoutMs: number;
  passwordHashingConcurrency: number;
  passwordHashingQueue: number;
  logLevel: string;
}

/**
 * The session signing key as a PEM, checked to be one here: a key that does not parse is a
 * configuration error naming its variable (exit 78), not a crash with OpenSSL's words. Neither the
 * key nor the parser's message, which may quote it, is shown.
 */
function sessionSigningKeyOf(value: string): string {
  // Environment files often carry a PEM on one line with literal "\n".
  const pem = value.replace(/\\n/g, '\n');
  let keyType: string | undefined;
  try {
    keyType = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    keyType = undefined;
  }
  if (keyType !== 'ed25519') {
    throw new Error('must be an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519)');
  }
  return pem;
}

export function readAuthorityConfig(env: Record<string, string | undefined> = process.env) {
  const loaded = loadConfig(authorityEnvironment, env);
  const values = loaded.values;
  const config: AuthorityConfig = {
    databaseUrl: values.DATABASE_URL,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    amqpUrl: values.AMQP_URL,
    brokerNamespace: values.BROKER_NAMESPACE,
    healthPort: values.HEALTH_PORT,
    sessionSigningKey: sessionSigningKeyOf(values.SESSION_SIGNING_KEY),
    sessionTtlSeconds: values.SESSION_TTL_SECONDS,
    sessionMaxSeconds: values.SESSION_MAX_SECONDS,
    keyChangeTimeoutMs: values.KEY_CHANGE_TIMEOUT_MS,
    passwordHashingConcurrency: values.PASSWORD_HASHING_CONCURRENCY,
    passwordHashingQueue: values.PASSWORD_HASHING_QUEUE,
    logLevel: values.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
