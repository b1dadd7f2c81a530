import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import winston from 'winston';
import { createLogger } from '@feedback/logging';
import { BROKER_SERVICES, Broker, RpcClient, applyBrokerLogins, deleteBrokerLogins, durableBrokerObjects, topologyNames } from '@feedback/messaging';
import type { BrokerService } from '@feedback/messaging';
import type { Logger } from '@feedback/logging';
import { TcpProxy, createTestDatabase, createTestNamespace, deleteBrokerObjects, testCertificates } from '@feedback/test-support';
import type { TestDatabase } from '@feedback/test-support';
import { readApiConfig, startApi } from '../../../services/api/src/service.js';
import type { ApiService } from '../../../services/api/src/service.js';
import { readAuthorityConfig, startAuthority } from '../../../services/authority/src/service.js';
import type { AuthorityService } from '../../../services/authority/src/service.js';
import { readWorkerConfig, startWorker } from '../../../services/webhook-worker/src/service.js';
import type { WorkerService } from '../../../services/webhook-worker/src/service.js';
import { durableWebhookQueues } from '../../../services/webhook-worker/src/queues/webhook-topology.js';

export interface RunningSystem {
  api: ApiService;
  /** Starts one more api instance on the same database and broker, with these settings changed. */
  startAnotherApi(overrides?: Record<string, string>): Promise<ApiService>;
  authority: AuthorityService;
  worker: WorkerService;
  /** Cuts and restores every service's broker connection, as a broker restart would. */
  brokerProxy: TcpProxy;
  /**
   * With `databaseProxy`: cuts and restores every service's database connection, as a PostgreSQL
   * restart would.
   */
  databaseProxy?: TcpProxy;
  /** The system's database, reached directly (`env.DATABASE_URL` may go through `databaseProxy`). */
  databaseUrl: string;
  /** The broker namespace of this system's exchanges and queues. */
  namespace: string;
  /**
   * The environment the services were started with, but for the broker login: `AMQP_URL` here is
   * the test's own (guest), for tools and processes a test starts.
   */
  env: Record<string, string>;
  /** The broker URL each service was started with: its own login, where rabbitmqctl could make one. */
  amqpUrls: Record<BrokerService, string>;
  logs: string[];
  stop(): Promise<void>;
}

export const POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const AMQP_URL = process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

let sharedLoginWarned = false;

/**
 * A broker login of its own for each service, allowed only what production allows it
 * (`brokerPermissions`), made with rabbitmqctl for this namespace. Where rabbitmqctl cannot reach
 * the broker (a broker elsewhere, through TEST_AMQP_URL), every service shares the test's login.
 */
async function serviceBrokerLogins(namespace: string, proxiedUrl: string): Promise<{ urls: Record<BrokerService, string>; users: string[] }> {
  const logins = BROKER_SERVICES.map((service) => ({ service, user: `${namespace}${service}`, password: randomBytes(12).toString('hex') }));
  try {
    await applyBrokerLogins(logins, { namespace });
  } catch (error) {
    if (!sharedLoginWarned) process.stderr.write(`every service shares the test's broker login: rabbitmqctl failed (${(error as Error).message.split('\n')[0]})\n`);
    sharedLoginWarned = true;
    await deleteBrokerLogins(logins.map((login) => login.user));
    return { urls: { api: proxiedUrl, authority: proxiedUrl, 'webhook-worker': proxiedUrl }, users: [] };
  }
  const urlOf = (login: (typeof logins)[number]) => {
    const url = new URL(proxiedUrl);
    url.username = encodeURIComponent(login.user);
    url.password = login.password;
    return url.toString();
  };
  return { urls: Object.fromEntries(logins.map((login) => [login.service, urlOf(login)])) as Record<BrokerService, string>, users: logins.map((login) => login.user) };
}

function capturingLogger(service: string, logs: string[]): Logger {
  const sink = new winston.transports.Console({ level: 'debug', silent: false });
  sink.log = (info: Record<string | symbol, unknown>, next: () => void) => {
    logs.push(String(info[Symbol.for('message')]));
    next();
  };
  return createLogger({ service, level: 'debug', transports: [sink] });
}

/**
 * Starts api, authority and worker in this process, each through its real start-up path (config
 * parsing, migrations, broker, health server), on a database and broker namespace of their own.
 * With `options.databaseProxy` (default: false) they reach the database through a `TcpProxy` too.
 */
export async function startSystem(overrides: Record<string, string> = {}, options: { databaseProxy?: boolean } = {}): Promise<RunningSystem> {
  const database: TestDatabase = await createTestDatabase(POSTGRES_URL);
  const namespace = createTestNamespace();
  const target = new URL(AMQP_URL);
  const brokerProxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5672) });
  const postgres = new URL(POSTGRES_URL);
  const databaseProxy = options.databaseProxy ? await TcpProxy.start({ host: postgres.hostname, port: Number(postgres.port || 5432) }) : undefined;
  const env = {
    DATABASE_URL: databaseProxy ? databaseProxy.urlFor(database.url) : database.url,
    AMQP_URL: brokerProxy.urlFor(AMQP_URL),
    BROKER_NAMESPACE: namespace,
    PORT: '0',
    HEALTH_PORT: '0',
    METRICS_PORT: '0',
    // The production default for calls between services: a loaded test machine's stall of a
    // second must not turn a call into a 503. Key changes keep a short limit, which the tests of
    // an instance that does not confirm wait out.
    RPC_TIMEOUT_MS: '3000',
    KEY_CHANGE_TIMEOUT_MS: '1000',
    OUTBOX_POLL_MS: '100',
    LOG_LEVEL: 'debug',
    SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ERASURE_HASH_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'localhost',
    WEBHOOK_EXTRA_CA_FILE: testCertificates().caFile,
    // The schedule in milliseconds: the same topology, fast.
    WEBHOOK_RETRY_DELAYS_MS: '50,60,70,80,90',
    PER_ENDPOINT_CONCURRENCY: '4',
    SESSION_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    // Every test signs up and signs in from 127.0.0.1: the limits of one address are tested apart
    // (request-limits.test.ts), with their own settings.
    SIGN_UP_LIMIT: '100000',
    SIGN_IN_ADDRESS_LIMIT: '100000',
    SIGN_IN_ACCOUNT_LIMIT: '100000',
    WIDGET_ADDRESS_LIMIT: '100000',
    WIDGET_KEY_LIMIT: '100000',
    ...overrides,
  };
  const logs: string[] = [];
  const logins = await serviceBrokerLogins(namespace, env.AMQP_URL);
  const as = (service: BrokerService) => ({ ...env, AMQP_URL: overrides['AMQP_URL'] ?? logins.urls[service] });
  const authority = await startAuthority(readAuthorityConfig(as('authority')).config, capturingLogger('authority', logs));
  const worker = await startWorker(readWorkerConfig(as('webhook-worker')).config, capturingLogger('webhook-worker', logs));
  const api = await startApi(readApiConfig(as('api')).config, capturingLogger('api', logs));
  const extraApis: ApiService[] = [];
  return {
    api,
    async startAnotherApi(apiOverrides: Record<string, string> = {}) {
      const another = await startApi(readApiConfig({ ...as('api'), ...apiOverrides }).config, capturingLogger('api', logs));
      extraApis.push(another);
      return another;
    },
    authority,
    worker,
    brokerProxy,
    databaseProxy,
    databaseUrl: database.url,
    namespace,
    env,
    amqpUrls: logins.urls,
    logs,
    async stop() {
      for (const extra of extraApis) await extra.stop();
      await api.stop();
      await worker.stop();
      await authority.stop();
      await brokerProxy.close();
      await databaseProxy?.close();
      const { retryDelaysMs, throttleDelaysMs } = readWorkerConfig(env).config;
      await deleteBrokerObjects(AMQP_URL, durableBrokerObjects(namespace, durableWebhookQueues(namespace, retryDelaysMs, throttleDelaysMs)));
      await deleteBrokerLogins(logins.users);
      await database.drop();
    },
  };
}

export function healthUrl(service: { healthServer: Server }): string {
  const address = service.healthServer.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/**
 * An RPC caller of its own on the system's broker namespace, with its own time limit: a dashboard
 * that gives up sooner, or a request that reaches a service late. Close it when done.
 */
export async function connectRpcCaller(system: RunningSystem, options: { name: string; timeoutMs: number }): Promise<RpcClient & { close(): Promise<void> }> {
  const silent = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
  const broker = Broker.connect({ url: system.env['AMQP_URL']!, connectionName: options.name, logger: silent });
  await broker.waitUntilConnected(5000);
  const rpc = new RpcClient(broker, silent, { names: topologyNames(system.namespace), timeoutMs: options.timeoutMs });
  const closeRpc = rpc.close.bind(rpc);
  return Object.assign(rpc, {
    async close() {
      await closeRpc();
      await broker.close();
    },
  });
}
