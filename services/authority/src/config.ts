import { createPrivateKey } from 'node:crypto';
import { environmentOf, integer, loadConfig, oneOf, string, url, variable } from '@feedback/config';
import type { ConfigOf } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';

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

/** Every environment variable the authority reads, by the field of its configuration, validated at start-up. */
export const authorityVariables = {
  databaseUrl: url({
    env: 'DATABASE_URL',
    description: 'PostgreSQL URL; the authority keeps its tables in schema "authority"',
    protocols: ['postgresql', 'postgres'],
  }),
  databasePoolSize: databasePoolSizeVariable,
  amqpUrl: url({ env: 'AMQP_URL', description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  brokerNamespace: string({ env: 'BROKER_NAMESPACE', description: 'prefix of every exchange and queue name', default: '' }),
  healthPort: integer({ env: 'HEALTH_PORT', description: 'port of the health endpoints', default: 3001, min: 0, max: 65535 }),
  sessionSigningKey: variable({ env: 'SESSION_SIGNING_KEY', description: 'Ed25519 private key (PKCS#8 PEM) that signs member session tokens', secret: true }, sessionSigningKeyOf),
  sessionTtlSeconds: integer({
    env: 'SESSION_TTL_SECONDS',
    description: 'lifetime of a member session token; a session not renewed for this long has expired',
    default: 900,
    min: 60,
    max: 86_400,
  }),
  sessionMaxSeconds: integer({
    env: 'SESSION_MAX_SECONDS',
    description: 'absolute end of a member session, counted from sign-in, however often it is renewed',
    default: 43_200,
    min: 60,
    max: 2_592_000,
  }),
  keyChangeTimeoutMs: integer({
    env: 'KEY_CHANGE_TIMEOUT_MS',
    description: 'how long a key change waits for every api instance to confirm it',
    default: 3000,
    min: 100,
  }),
  passwordHashingConcurrency: integer({ env: 'PASSWORD_HASHING_CONCURRENCY', description: 'passwords hashed or checked at once (sign-up, sign-in, adding a member)', default: 2, min: 1, max: 64 }),
  passwordHashingQueue: integer({
    env: 'PASSWORD_HASHING_QUEUE',
    description: 'passwords that may wait for a turn to be hashed; past that, sign-ups and sign-ins answer 429 at once instead of waiting',
    default: 16,
    min: 0,
  }),
  logLevel: oneOf(['error', 'warn', 'info', 'debug'], { env: 'LOG_LEVEL', description: 'minimum log level', default: 'info' }),
};


/** Every variable by its environment name, as operators and docs/configuration.md name them. */
export const authorityEnvironment = environmentOf(authorityVariables);

export type AuthorityConfig = ConfigOf<typeof authorityVariables>;

export function readAuthorityConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(authorityVariables, env);
}
