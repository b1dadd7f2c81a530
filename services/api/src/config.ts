import { fileURLToPath } from 'node:url';
import express from 'express';
import { base64Key, environmentOf, integer, list, loadConfig, oneOf, string, url, variable } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';
import type { ConfigOf } from '@feedback/config';

/** Express's "trust proxy" setting as it takes it: true, false, a number of hops, or a list. */
export type TrustProxy = boolean | number | string;

/**
 * "trust proxy" read the way an operator means it. Express reads a string as a list of addresses,
 * so "1" (one hop, as commonly written) would be the address 0.0.0.1 and trust nothing, and an
 * unreadable address would fail only once the app is built: both are caught here, at start-up.
 */
function trustProxyOf(value: string): TrustProxy {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d{1,2}$/.test(value)) return Number(value);
  try {
    express().set('trust proxy', value); // compiles the list, as the app will
  } catch (error) {
    throw new Error(`must be true, false, a number of hops, or a list of addresses, subnets and names: ${(error as Error).message}`, { cause: error });
  }
  return value;
}

/** The public surfaces an api instance may serve. */
export const SURFACES = ['api', 'widget', 'dashboard'] as const;
export type Surface = (typeof SURFACES)[number];

/** Every environment variable the api reads, by the field of its configuration, validated at start-up. */
export const apiVariables = {
  databaseUrl: url({
    env: 'DATABASE_URL',
    description: 'PostgreSQL URL; the api keeps its tables in schema "api"',
    protocols: ['postgresql', 'postgres'],
  }),
  databasePoolSize: databasePoolSizeVariable,
  amqpUrl: url({ env: 'AMQP_URL', description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  brokerNamespace: string({ env: 'BROKER_NAMESPACE', description: 'prefix of every exchange and queue name', default: '' }),
  port: integer({ env: 'PORT', description: 'HTTP port of the public edge', default: 3000, min: 0, max: 65535 }),
  processes: integer({
    env: 'API_PROCESSES',
    description: 'processes serving PORT together (Node cluster), each a whole api instance; the first serves their metrics summed on METRICS_PORT; 0: one per CPU core',
    default: 1,
    min: 0,
    max: 64,
  }),
  surfaces: list<Surface>({
    env: 'SURFACES',
    description:
      'the surfaces this instance serves, of api (/api/v1), widget (/widget/v1) and dashboard (/dashboard/v1 and the page): separate fleets keep a flood of anonymous sign-ups or widget requests off the customers\' integrations',
    default: [...SURFACES],
    check: (surfaces) => {
      const unknown = surfaces.filter((surface) => !(SURFACES as readonly string[]).includes(surface));
      if (surfaces.length === 0 || unknown.length > 0) throw new Error(`must name one or more of ${SURFACES.join(', ')}${unknown.length > 0 ? `, not ${unknown.join(', ')}` : ''}`);
    },
  }),
  metricsPort: integer({ env: 'METRICS_PORT', description: 'internal port of GET /metrics (Prometheus) and the health routes; never expose it publicly', default: 3003, min: 0, max: 65535 }),
  publicBaseUrl: url({ env: 'PUBLIC_BASE_URL', description: 'base address customers call', protocols: ['http', 'https'], trimTrailingSlash: true, default: 'http://localhost:3000' }),
  dashboardUrl: url({ env: 'DASHBOARD_URL', description: 'team dashboard address, for links in error bodies', protocols: ['http', 'https'], trimTrailingSlash: true, default: 'http://localhost:3000/dashboard' }),
  dashboardFiles: string({
    env: 'DASHBOARD_FILES',
    description: 'folder of the built dashboard page, served at /dashboard; empty: apps/dashboard/dist of this checkout',
    default: fileURLToPath(new URL('../../../apps/dashboard/dist', import.meta.url)),
  }),
  docsUrl: url({ env: 'DOCS_URL', description: 'API documentation address, for links in error bodies', protocols: ['http', 'https'], trimTrailingSlash: true, default: 'http://localhost:3000/docs' }),
  rpcTimeoutMs: integer({ env: 'RPC_TIMEOUT_MS', description: 'time limit of a call to another service before answering 503', default: 3000, min: 50 }),
  dashboardRpcTimeoutMs: integer({
    env: 'DASHBOARD_RPC_TIMEOUT_MS',
    description: 'time limit of a dashboard command, longer than RPC_TIMEOUT_MS: a key change waits for every api instance to confirm it',
    default: 10_000,
    min: 100,
  }),
  outboxPollMs: integer({ env: 'OUTBOX_POLL_MS', description: 'how often the outbox relay looks for events written by other instances', default: 250, min: 10 }),
  outboxRetentionHours: integer({ env: 'OUTBOX_RETENTION_HOURS', description: 'how long a published event stays in the outbox before it is deleted', default: 168, min: 1 }),
  idempotencyKeyRetentionHours: integer({
    env: 'IDEMPOTENCY_KEY_RETENTION_HOURS',
    description: 'how long an Idempotency-Key and the answer it replays are kept; after that the same key is a new request (the API documentation promises customers at least 24 hours)',
    default: 24,
    min: 24,
  }),
  keyCacheTtlMs: integer({ env: 'KEY_CACHE_TTL_MS', description: 'how long a verified key is reused without asking the authority', default: 60_000, min: 0 }),
  authFailureLimit: integer({ env: 'AUTH_FAILURE_LIMIT', description: 'failed authentications per client address (IPv6: per /64) per minute before 429, on each of /api/v1 and /dashboard/v1', default: 30, min: 1 }),
  signUpLimit: integer({ env: 'SIGN_UP_LIMIT', description: 'sign-ups per client address (IPv6: per /64) per hour before 429', default: 10, min: 1 }),
  signInAddressLimit: integer({ env: 'SIGN_IN_ADDRESS_LIMIT', description: 'sign-in attempts per client address (IPv6: per /64) per minute before 429', default: 20, min: 1 }),
  signInAccountLimit: integer({
    env: 'SIGN_IN_ACCOUNT_LIMIT',
    description: 'sign-in attempts per account in 15 minutes before 429; the account is then refused for 15 minutes, doubling at each refusal in a day, up to a day; a sign-in that succeeds starts the count again',
    default: 10,
    min: 1,
  }),
  widgetAddressLimit: integer({ env: 'WIDGET_ADDRESS_LIMIT', description: 'widget requests per client address (IPv6: per /64) per minute before 429, whatever public key they carry', default: 120, min: 1 }),
  widgetKeyLimit: integer({ env: 'WIDGET_KEY_LIMIT', description: "widget requests per app public key per minute, from every address together, before 429", default: 600, min: 1 }),
  unknownPublicKeyCacheMs: integer({ env: 'UNKNOWN_PUBLIC_KEY_CACHE_MS', description: 'how long a public key no app has is answered 401 without asking the authority again', default: 60_000, min: 0 }),
  trustProxy: variable(
    {
      env: 'TRUST_PROXY',
      description: 'which proxies may set X-Forwarded-For: true, false, a number of hops, or addresses, subnets and names (loopback, linklocal, uniquelocal)',
      default: 'loopback',
    },
    trustProxyOf,
  ),
  erasureHashKey: base64Key({
    env: 'ERASURE_HASH_KEY',
    description: "key (32 bytes, base64) of the hash that names an erased end user to the webhook worker; the worker's ERASURE_HASH_KEY, the same value",
    bytes: 32,
    hint: "the same value as the webhook worker's ERASURE_HASH_KEY; a new one, for a new installation: openssl rand -base64 32",
  }),
  logLevel: oneOf(['error', 'warn', 'info', 'debug'], { env: 'LOG_LEVEL', description: 'minimum log level', default: 'info' }),
};

/** Every variable by its environment name, as operators and docs/configuration.md name them. */
export const apiEnvironment = environmentOf(apiVariables);

export type ApiConfig = ConfigOf<typeof apiVariables>;

export function readApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiVariables, env);
}
