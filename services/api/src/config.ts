import { fileURLToPath } from 'node:url';
import express from 'express';
import { base64Key, integer, list, loadConfig, oneOf, string, url } from '@feedback/config';
import { databasePoolSizeVariable } from '@feedback/database';
import type { Variable } from '@feedback/config';

/** Express's "trust proxy" setting as it takes it: true, false, a number of hops, or a list. */
export type TrustProxy = boolean | number | string;

/**
 * "trust proxy" read the way an operator means it. Express reads a string as a list of addresses,
 * so "1" (one hop, as commonly written) would be the address 0.0.0.1 and trust nothing, and an
 * unreadable address would fail only once the app is built: both are caught here, at start-up.
 */
function trustProxySetting(options: { description: string; default: string }): Variable<TrustProxy> {
  const text = string(options);
  return {
    description: options.description,
    secret: false,
    parse(raw) {
      const value = text.parse(raw);
      if (value === 'true' || value === 'false') return value === 'true';
      if (/^\d{1,2}$/.test(value)) return Number(value);
      try {
        express().set('trust proxy', value); // compiles the list, as the app will
      } catch (error) {
        throw new Error(`must be true, false, a number of hops, or a list of addresses, subnets and names: ${(error as Error).message}`, { cause: error });
      }
      return value;
    },
    display: (value) => String(value),
  };
}

/** The public surfaces an api instance may serve. */
export const SURFACES = ['api', 'widget', 'dashboard'] as const;
export type Surface = (typeof SURFACES)[number];

/** Every environment variable the api reads, validated at start-up. */
export const apiEnvironment = {
  DATABASE_URL: url({
    description: 'PostgreSQL URL; the api keeps its tables in schema "api"',
    protocols: ['postgresql', 'postgres'],
  }),
  DATABASE_POOL_SIZE: databasePoolSizeVariable,
  AMQP_URL: url({ description: 'RabbitMQ URL', protocols: ['amqp', 'amqps'] }),
  BROKER_NAMESPACE: string({ description: 'prefix of every exchange and queue name', default: '' }),
  PORT: integer({ description: 'HTTP port of the public edge', default: 3000, min: 0, max: 65535 }),
  API_PROCESSES: integer({
    description: 'processes serving PORT together (Node cluster), each a whole api instance; the first serves their metrics summed on METRICS_PORT; 0: one per CPU core',
    default: 1,
    min: 0,
    max: 64,
  }),
  SURFACES: list({
    description:
      'the surfaces this instance serves, of api (/api/v1), widget (/widget/v1) and dashboard (/dashboard/v1 and the page): separate fleets keep a flood of anonymous sign-ups or widget requests off the customers\' integrations',
    default: [...SURFACES],
    check: (surfaces) => {
      const unknown = surfaces.filter((surface) => !(SURFACES as readonly string[]).includes(surface));
      if (surfaces.length === 0 || unknown.length > 0) throw new Error(`must name one or more of ${SURFACES.join(', ')}${unknown.length > 0 ? `, not ${unknown.join(', ')}` : ''}`);
    },
  }),
  METRICS_PORT: integer({ description: 'internal port of GET /metrics (Prometheus) and the health routes; never expose it publicly', default: 3003, min: 0, max: 65535 }),
  PUBLIC_BASE_URL: url({ description: 'base address customers call', protocols: ['http', 'https'], default: 'http://localhost:3000' }),
  DASHBOARD_URL: url({ description: 'team dashboard address, for links in error bodies', protocols: ['http', 'https'], default: 'http://localhost:3000/dashboard' }),
  DASHBOARD_FILES: string({
    description: 'folder of the built dashboard page, served at /dashboard; empty: apps/dashboard/dist of this checkout',
    default: '',
  }),
  DOCS_URL: url({ description: 'API documentation address, for links in error bodies', protocols: ['http', 'https'], default: 'http://localhost:3000/docs' }),
  RPC_TIMEOUT_MS: integer({ description: 'time limit of a call to another service before answering 503', default: 3000, min: 50 }),
  DASHBOARD_RPC_TIMEOUT_MS: integer({
    description: 'time limit of a dashboard command, longer than RPC_TIMEOUT_MS: a key change waits for every api instance to confirm it',
    default: 10_000,
    min: 100,
  }),
  OUTBOX_POLL_MS: integer({ description: 'how often the outbox relay looks for events written by other instances', default: 250, min: 10 }),
  OUTBOX_RETENTION_HOURS: integer({ description: 'how long a published event stays in the outbox before it is deleted', default: 168, min: 1 }),
  IDEMPOTENCY_KEY_RETENTION_HOURS: integer({
    description: 'how long an Idempotency-Key and the answer it replays are kept; after that the same key is a new request (the API documentation promises customers at least 24 hours)',
    default: 24,
    min: 24,
  }),
  KEY_CACHE_TTL_MS: integer({ description: 'how long a verified key is reused without asking the authority', default: 60_000, min: 0 }),
  AUTH_FAILURE_LIMIT: integer({ description: 'failed authentications per client address (IPv6: per /64) per minute before 429, on each of /api/v1 and /dashboard/v1', default: 30, min: 1 }),
  SIGN_UP_LIMIT: integer({ description: 'sign-ups per client address (IPv6: per /64) per hour before 429', default: 10, min: 1 }),
  SIGN_IN_ADDRESS_LIMIT: integer({ description: 'sign-in attempts per client address (IPv6: per /64) per minute before 429', default: 20, min: 1 }),
  SIGN_IN_ACCOUNT_LIMIT: integer({
    description: 'sign-in attempts per account in 15 minutes before 429; the account is then refused for 15 minutes, doubling at each refusal in a day, up to a day; a sign-in that succeeds starts the count again',
    default: 10,
    min: 1,
  }),
  WIDGET_ADDRESS_LIMIT: integer({ description: 'widget requests per client address (IPv6: per /64) per minute before 429, whatever public key they carry', default: 120, min: 1 }),
  WIDGET_KEY_LIMIT: integer({ description: "widget requests per app public key per minute, from every address together, before 429", default: 600, min: 1 }),
  UNKNOWN_PUBLIC_KEY_CACHE_MS: integer({ description: 'how long a public key no app has is answered 401 without asking the authority again', default: 60_000, min: 0 }),
  TRUST_PROXY: trustProxySetting({
    description: 'which proxies may set X-Forwarded-For: true, false, a number of hops, or addresses, subnets and names (loopback, linklocal, uniquelocal)',
    default: 'loopback',
  }),
  ERASURE_HASH_KEY: base64Key({
    description: "key (32 bytes, base64) of the hash that names an erased end user to the webhook worker; the worker's ERASURE_HASH_KEY, the same value",
    bytes: 32,
    hint: "the same value as the webhook worker's ERASURE_HASH_KEY; a new one, for a new installation: openssl rand -base64 32",
  }),
  LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'], { description: 'minimum log level', default: 'info' }),
};

export interface ApiConfig {
  databaseUrl: string;
  databasePoolSize: number;
  amqpUrl: string;
  brokerNamespace: string;
  port: number;
  /** Processes serving `port` together; 0: one per core. */
  processes: number;
  /** The surfaces this instance serves. */
  surfaces: Surface[];
  metricsPort: number;
  publicBaseUrl: string;
  dashboardUrl: string;
  /** The built dashboard page's folder. */
  dashboardFiles: string;
  docsUrl: string;
  rpcTimeoutMs: number;
  dashboardRpcTimeoutMs: number;
  outboxPollMs: number;
  outboxRetentionHours: number;
  idempotencyKeyRetentionHours: number;
  keyCacheTtlMs: number;
  authFailureLimit: number;
  signUpLimit: number;
  signInAddressLimit: number;
  signInAccountLimit: number;
  widgetAddressLimit: number;
  widgetKeyLimit: number;
  unknownPublicKeyCacheMs: number;
  trustProxy: TrustProxy;
  /** Names an erased end user in the event the worker hears (the worker's, the same). */
  erasureHashKey: string;
  logLevel: string;
}

export function readApiConfig(env: Record<string, string | undefined> = process.env) {
  const loaded = loadConfig(apiEnvironment, env);
  const v = loaded.values;
  const config: ApiConfig = {
    databaseUrl: v.DATABASE_URL,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    amqpUrl: v.AMQP_URL,
    brokerNamespace: v.BROKER_NAMESPACE,
    port: v.PORT,
    processes: v.API_PROCESSES,
    surfaces: v.SURFACES as Surface[],
    metricsPort: v.METRICS_PORT,
    publicBaseUrl: v.PUBLIC_BASE_URL.replace(/\/$/, ''),
    dashboardUrl: v.DASHBOARD_URL.replace(/\/$/, ''),
    dashboardFiles: v.DASHBOARD_FILES || fileURLToPath(new URL('../../../apps/dashboard/dist', import.meta.url)),
    docsUrl: v.DOCS_URL.replace(/\/$/, ''),
    rpcTimeoutMs: v.RPC_TIMEOUT_MS,
    dashboardRpcTimeoutMs: v.DASHBOARD_RPC_TIMEOUT_MS,
    outboxPollMs: v.OUTBOX_POLL_MS,
    outboxRetentionHours: v.OUTBOX_RETENTION_HOURS,
    idempotencyKeyRetentionHours: v.IDEMPOTENCY_KEY_RETENTION_HOURS,
    keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
    authFailureLimit: v.AUTH_FAILURE_LIMIT,
    signUpLimit: v.SIGN_UP_LIMIT,
    signInAddressLimit: v.SIGN_IN_ADDRESS_LIMIT,
    signInAccountLimit: v.SIGN_IN_ACCOUNT_LIMIT,
    widgetAddressLimit: v.WIDGET_ADDRESS_LIMIT,
    widgetKeyLimit: v.WIDGET_KEY_LIMIT,
    unknownPublicKeyCacheMs: v.UNKNOWN_PUBLIC_KEY_CACHE_MS,
    trustProxy: v.TRUST_PROXY,
    erasureHashKey: v.ERASURE_HASH_KEY,
    logLevel: v.LOG_LEVEL,
  };
  return { config, describe: loaded.describe };
}
