import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { base64Key, base64Keys, integer, list, loadConfig, oneOf, string, url } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';

/** RabbitMQ caps a queue's x-message-ttl at 2^32 - 1 ms (about 49 days). */
const MAX_QUEUE_TTL_MS = 2 ** 32 - 1;

/** Each delay is a queue's TTL: whole milliseconds RabbitMQ can hold, `min` to `max` of them. */
function queueDelays(min: number, max: number, count: string): (delays: string[]) => void {
  return (delays) => {
    if (delays.length < min || delays.length > max || delays.some((delay) => !/^[1-9][0-9]*$/.test(delay) || Number(delay) > MAX_QUEUE_TTL_MS)) {
      throw new Error(`must be ${count} of milliseconds from 1 to ${MAX_QUEUE_TTL_MS}, got "${delays.join(',')}"`);
    }
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

/** Every environment variable the worker reads, validated at start-up. */
export const workerEnvironment = {
  DATABASE_URL: url({
    description: 'PostgreSQL URL; the worker keeps its tables in schema "webhooks"',
    protocols: ['postgresql', 'postgres'],
  }),
  DATABASE_POOL_SIZE: databasePoolSizeVariable,
  AMQP_URL: url({ description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  BROKER_NAMESPACE: string({ description: 'prefix of every exchange and queue name', default: '' }),
  HEALTH_PORT: integer({ description: 'port of the health endpoints', default: 3002, min: 0, max: 65535 }),
  EVENT_PREFETCH: integer({ description: 'domain events one worker handles at once', default: 50, min: 1, max: 1000 }),
  SIGNING_SECRET_ENCRYPTION_KEY: base64Key({
    description: 'AES-256 key (32 bytes, base64) that seals webhook signing secrets at rest',
    bytes: 32,
    hint: 'a new one, for a new installation: openssl rand -base64 32. Once endpoints exist, only the key that sealed their secrets opens them: to change it, see SIGNING_SECRET_PREVIOUS_KEYS',
  }),
  ERASURE_HASH_KEY: base64Key({
    description: "key (32 bytes, base64) of the hash that names an erased end user; the api's ERASURE_HASH_KEY, the same value",
    bytes: 32,
    hint: 'the same value as the api\'s ERASURE_HASH_KEY; a new one, for a new installation: openssl rand -base64 32',
  }),
  SIGNING_SECRET_PREVIOUS_KEYS: base64Keys({
    description: 'earlier (or, while a new key is being rolled out, the next) keys, comma-separated: they open signing secrets, never seal them; secrets they opened are sealed again under the current key, at start-up and every ten minutes',
    bytes: 32,
    default: [],
  }),
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: list({
    description: 'host names allowed to be local or private (local test receivers only)',
    default: [],
  }),
  WEBHOOK_RETRY_DELAYS_MS: list({
    description: 'delays of the five retries, in milliseconds (tests shorten them)',
    default: ['300000', '900000', '2700000', '8100000', '24300000'],
    check: queueDelays(5, 5, 'five whole numbers'),
  }),
  WEBHOOK_THROTTLE_DELAYS_MS: list({
    description: "rising waits, in milliseconds, of a message whose endpoint already has enough attempts in flight: the first time, the second, and so on, the last repeated (tests shorten them)",
    default: ['1000', '5000', '30000'],
    check: queueDelays(1, 10, 'one to ten whole numbers'),
  }),
  WEBHOOK_THROTTLE_CLIMB_PER_SECOND: integer({
    description:
      "attempts of a struggling endpoint (answers over a second) a second that may find no slot in one worker before they climb the throttle ladder although it answers (its backlog is then far more than its slots take)",
    default: 100,
    min: 1,
  }),
  WEBHOOK_TIMEOUT_MS: integer({ description: 'time limit of one delivery attempt', default: 10_000, min: 100, max: 60_000 }),
  DELIVERY_PREFETCH: integer({ description: 'webhook requests one worker makes at once, from events and the deliver queue', default: 64, min: 1, max: 1000 }),
  RECORD_GATHER_MS: integer({
    description: 'how long a finished attempt waits for others to be recorded in the same statement (off the delivery path)',
    default: 5,
    min: 0,
    max: 1000,
  }),
  RPC_TIMEOUT_MS: integer({ description: "time limit of a call to the authority (its public keys, which verify endpoint commands' grants)", default: 3000, min: 50 }),
  PER_HOST_CONCURRENCY: integer({
    description: 'requests one destination host may have in flight at once from one worker, from every team together (more go round a throttle queue)',
    default: 16,
    min: 1,
    max: 1000,
  }),
  PER_TEAM_CONCURRENCY: integer({
    description: "most requests one team may have in flight at once in one worker; each team's share is the worker's DELIVERY_PREFETCH divided among the teams sending, at most this; 0: half of DELIVERY_PREFETCH",
    default: 0,
    min: 0,
    max: 1000,
  }),
  TEAM_DELIVERY_RATE: integer({
    description: 'attempts one team may start a second in one worker; the rest wait in a throttle queue, none dropped',
    default: 2000,
    min: 1,
  }),
  PER_ENDPOINT_CONCURRENCY: integer({ description: 'requests one endpoint may have in flight at once from one worker (more wait briefly in line, or go round a throttle queue)', default: 8, min: 1, max: 1000 }),
  DELIVERY_HISTORY_RETENTION_DAYS: integer({
    description: "how long a settled delivery's history (attempts, answers, payload) is kept after its last change before it is deleted",
    default: 30,
    min: 1,
  }),
  WEBHOOK_PAUSE_AFTER_FAILING_SECONDS: integer({
    description: 'how long every attempt to an endpoint must have failed, without one success, before it is paused (5 days)',
    default: 432_000,
    min: 1,
  }),
  WEBHOOK_PAUSE_CHECK_MS: integer({ description: 'how often a worker pauses the endpoints that have failed that long', default: 60_000, min: 10 }),
  WEBHOOK_HEALTH_FLUSH_MS: integer({
    description: "how often a worker writes what its attempts say of endpoints' health (last success, failing since, hourly counts)",
    default: 5_000,
    min: 10,
    max: 600_000,
  }),
  WEBHOOK_RECOVER_IN_FLIGHT: integer({ description: 'redeliveries one Recover has queued and not yet seen settle, at most', default: 32, min: 1, max: 1000 }),
  WEBHOOK_EXTRA_CA_FILE: string({ description: 'an extra CA certificate (PEM file) to trust (local test receivers only)', default: '', check: certificateFile }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface WorkerConfig {
  databaseUrl: string;
  databasePoolSize: number;
  amqpUrl: string;
  brokerNamespace: string;
  healthPort: number;
  eventPrefetch: number;
  signingSecretEncryptionKey: string;
  /** Names erased end users (the api's, the same): an attempt for one is withheld. */
  erasureHashKey: string;
  /** Keys that open signing secrets but never seal them: the ones a key change leaves behind. */
  previousSigningSecretKeys: string[];
  allowedPrivateHosts: string[];
  extraCaFile: string;
  retryDelaysMs: number[];
  throttleDelaysMs: number[];
  throttleClimbPerSecond: number;
  webhookTimeoutMs: number;
  deliveryPrefetch: number;
  perEndpointConcurrency: number;
  perHostConcurrency: number;
  /** 0: half of deliveryPrefetch. */
  perTeamConcurrency: number;
  teamDeliveryRate: number;
  rpcTimeoutMs: number;
  recordGatherMs: number;
  deliveryHistoryRetentionDays: number;
  pauseAfterFailingSeconds: number;
  pauseCheckMs: number;
  healthFlushMs: number;
  recoverInFlight: number;
  logLevel: string;
}

export function readWorkerConfig(env: Record<string, string | undefined> = process.env) {
  const loaded = loadConfig(workerEnvironment, env);
  const v = loaded.values;
  const config: WorkerConfig = {
    databaseUrl: v.DATABASE_URL,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    amqpUrl: v.AMQP_URL,
    brokerNamespace: v.BROKER_NAMESPACE,
    healthPort: v.HEALTH_PORT,
    eventPrefetch: v.EVENT_PREFETCH,
    signingSecretEncryptionKey: v.SIGNING_SECRET_ENCRYPTION_KEY,
    erasureHashKey: v.ERASURE_HASH_KEY,
    previousSigningSecretKeys: v.SIGNING_SECRET_PREVIOUS_KEYS,
    allowedPrivateHosts: v.WEBHOOK_ALLOWED_PRIVATE_HOSTS,
    extraCaFile: v.WEBHOOK_EXTRA_CA_FILE,
    retryDelaysMs: v.WEBHOOK_RETRY_DELAYS_MS.map(Number),
    throttleDelaysMs: v.WEBHOOK_THROTTLE_DELAYS_MS.map(Number),
    throttleClimbPerSecond: v.WEBHOOK_THROTTLE_CLIMB_PER_SECOND,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    deliveryPrefetch: v.DELIVERY_PREFETCH,
    perEndpointConcurrency: v.PER_ENDPOINT_CONCURRENCY,
    perHostConcurrency: v.PER_HOST_CONCURRENCY,
    perTeamConcurrency: v.PER_TEAM_CONCURRENCY,
    teamDeliveryRate: v.TEAM_DELIVERY_RATE,
    rpcTimeoutMs: v.RPC_TIMEOUT_MS,
    recordGatherMs: v.RECORD_GATHER_MS,
    deliveryHistoryRetentionDays: v.DELIVERY_HISTORY_RETENTION_DAYS,
    pauseAfterFailingSeconds: v.WEBHOOK_PAUSE_AFTER_FAILING_SECONDS,
    pauseCheckMs: v.WEBHOOK_PAUSE_CHECK_MS,
    healthFlushMs: v.WEBHOOK_HEALTH_FLUSH_MS,
    recoverInFlight: v.WEBHOOK_RECOVER_IN_FLIGHT,
    logLevel: v.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
