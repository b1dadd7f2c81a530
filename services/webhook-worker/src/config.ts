import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { base64Key, base64Keys, environmentOf, integer, list, loadConfig, oneOf, string, url, variable } from '@feedback/config';
import type { ConfigOf } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';

/** RabbitMQ caps a queue's x-message-ttl at 2^32 - 1 ms (about 49 days). */
const MAX_QUEUE_TTL_MS = 2 ** 32 - 1;

/**
 * Queue delays, comma-separated: each a queue's TTL, whole milliseconds RabbitMQ can hold, `min`
 * to `max` of them.
 */
function queueDelays(min: number, max: number, count: string): (raw: string) => number[] {
  return (raw) => {
    const delays = raw.split(',').map((delay) => delay.trim()).filter((delay) => delay !== '');
    if (delays.length < min || delays.length > max || delays.some((delay) => !/^[1-9][0-9]*$/.test(delay) || Number(delay) > MAX_QUEUE_TTL_MS)) {
      throw new Error(`must be ${count} of milliseconds from 1 to ${MAX_QUEUE_TTL_MS}, got "${delays.join(',')}"`);
    }
    return delays.map(Number);
  };
}

/**
 * A CA file is read when the sender is built, after migrations and the broker: one that cannot be
 * read, or holds no certificate, is a configuration error named at once instead.
 */
function certificateFile(path: string): void {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (${path})`, { cause: error });
  }
  try {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    new X509Certificate(pem);
  } catch {
    throw new Error(`must be a PEM certificate file (${path})`);
  }
}

/** Every environment variable the worker reads, by the field of its configuration, validated at start-up. */
export const workerVariables = {
  databaseUrl: url({
    env: 'DATABASE_URL',
    description: 'PostgreSQL URL; the worker keeps its tables in schema "webhooks"',
    protocols: ['postgresql', 'postgres'],
  }),
  databasePoolSize: databasePoolSizeVariable,
  amqpUrl: url({ env: 'AMQP_URL', description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  brokerNamespace: string({ env: 'BROKER_NAMESPACE', description: 'prefix of every exchange and queue name', default: '' }),
  healthPort: integer({ env: 'HEALTH_PORT', description: 'port of the health endpoints', default: 3002, min: 0, max: 65535 }),
  eventPrefetch: integer({ env: 'EVENT_PREFETCH', description: 'domain events one worker handles at once', default: 50, min: 1, max: 1000 }),
  signingSecretEncryptionKey: base64Key({
    env: 'SIGNING_SECRET_ENCRYPTION_KEY',
    description: 'AES-256 key (32 bytes, base64) that seals webhook signing secrets at rest',
    bytes: 32,
    hint: 'a new one, for a new installation: openssl rand -base64 32. Once endpoints exist, only the key that sealed their secrets opens them: to change it, see SIGNING_SECRET_PREVIOUS_KEYS',
  }),
  erasureHashKey: base64Key({
    env: 'ERASURE_HASH_KEY',
    description: "key (32 bytes, base64) of the hash that names an erased end user; the api's ERASURE_HASH_KEY, the same value",
    bytes: 32,
    hint: 'the same value as the api\'s ERASURE_HASH_KEY; a new one, for a new installation: openssl rand -base64 32',
  }),
  previousSigningSecretKeys: base64Keys({
    env: 'SIGNING_SECRET_PREVIOUS_KEYS',
    description: 'earlier (or, while a new key is being rolled out, the next) keys, comma-separated: they open signing secrets, never seal them; secrets they opened are sealed again under the current key, at start-up and every ten minutes',
    bytes: 32,
    default: [],
  }),
  allowedPrivateHosts: list({
    env: 'WEBHOOK_ALLOWED_PRIVATE_HOSTS',
    description: 'host names allowed to be local or private (local test receivers only)',
    default: [],
  }),
  retryDelaysMs: variable(
    {
      env: 'WEBHOOK_RETRY_DELAYS_MS',
      description: 'delays of the five retries, in milliseconds (tests shorten them)',
      default: [300_000, 900_000, 2_700_000, 8_100_000, 24_300_000],
    },
    queueDelays(5, 5, 'five whole numbers'),
  ),
  throttleDelaysMs: variable(
    {
      env: 'WEBHOOK_THROTTLE_DELAYS_MS',
      description: "rising waits, in milliseconds, of a message whose endpoint already has enough attempts in flight: the first time, the second, and so on, the last repeated (tests shorten them)",
      default: [1000, 5000, 30_000],
    },
    queueDelays(1, 10, 'one to ten whole numbers'),
  ),
  throttleClimbPerSecond: integer({
    env: 'WEBHOOK_THROTTLE_CLIMB_PER_SECOND',
    description:
      "attempts of a struggling endpoint (answers over a second) a second that may find no slot in one worker before they climb the throttle ladder although it answers (its backlog is then far more than its slots take)",
    default: 100,
    min: 1,
  }),
  webhookTimeoutMs: integer({ env: 'WEBHOOK_TIMEOUT_MS', description: 'time limit of one delivery attempt', default: 10_000, min: 100, max: 60_000 }),
  deliveryPrefetch: integer({ env: 'DELIVERY_PREFETCH', description: 'webhook requests one worker makes at once, from events and the deliver queue', default: 64, min: 1, max: 1000 }),
  recordGatherMs: integer({
    env: 'RECORD_GATHER_MS',
    description: 'how long a finished attempt waits for others to be recorded in the same statement (off the delivery path)',
    default: 5,
    min: 0,
    max: 1000,
  }),
  rpcTimeoutMs: integer({ env: 'RPC_TIMEOUT_MS', description: "time limit of a call to the authority (its public keys, which verify endpoint commands' grants)", default: 3000, min: 50 }),
  perHostConcurrency: integer({
    env: 'PER_HOST_CONCURRENCY',
    description: 'requests one destination host may have in flight at once from one worker, from every team together (more wait briefly in the worker, or go round a throttle queue)',
    default: 16,
    min: 1,
    max: 1000,
  }),
  perTeamConcurrency: integer({
    env: 'PER_TEAM_CONCURRENCY',
    description: "most requests one team may have in flight at once in one worker; each team's share is the worker's DELIVERY_PREFETCH divided among the teams sending, at most this; 0: half of DELIVERY_PREFETCH",
    default: 0,
    min: 0,
    max: 1000,
  }),
  teamDeliveryRate: integer({
    env: 'TEAM_DELIVERY_RATE',
    description: 'attempts one team may start a second in one worker; the rest wait, briefly in the worker or in a throttle queue, none dropped',
    default: 4000,
    min: 1,
  }),
  perEndpointConcurrency: integer({ env: 'PER_ENDPOINT_CONCURRENCY', description: 'requests one endpoint may have in flight at once from one worker (more wait briefly in line, or go round a throttle queue)', default: 8, min: 1, max: 1000 }),
  deliveryHistoryRetentionDays: integer({
    env: 'DELIVERY_HISTORY_RETENTION_DAYS',
    description: "how long a settled delivery's history (attempts, answers, payload) is kept after its last change before it is deleted",
    default: 30,
    min: 1,
  }),
  pauseAfterFailingSeconds: integer({
    env: 'WEBHOOK_PAUSE_AFTER_FAILING_SECONDS',
    description: 'how long every attempt to an endpoint must have failed, without one success, before it is paused (5 days)',
    default: 432_000,
    min: 1,
  }),
  pauseCheckMs: integer({ env: 'WEBHOOK_PAUSE_CHECK_MS', description: 'how often a worker pauses the endpoints that have failed that long', default: 60_000, min: 10 }),
  healthFlushMs: integer({
    env: 'WEBHOOK_HEALTH_FLUSH_MS',
    description: "how often a worker writes what its attempts say of endpoints' health (last success, failing since, hourly counts)",
    default: 5_000,
    min: 10,
    max: 600_000,
  }),
  recoverInFlight: integer({ env: 'WEBHOOK_RECOVER_IN_FLIGHT', description: 'redeliveries one Recover has queued and not yet seen settle, at most', default: 32, min: 1, max: 1000 }),
  extraCaFile: string({ env: 'WEBHOOK_EXTRA_CA_FILE', description: 'an extra CA certificate (PEM file) to trust (local test receivers only)', default: '', check: certificateFile }),
  logLevel: oneOf(['error', 'warn', 'info', 'debug'], { env: 'LOG_LEVEL', description: 'minimum log level', default: 'info' }),
};

/** Every variable by its environment name, as operators and docs/configuration.md name them. */
export const workerEnvironment = environmentOf(workerVariables);

export type WorkerConfig = ConfigOf<typeof workerVariables>;

export function readWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(workerVariables, env);
}
