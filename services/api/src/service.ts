import cluster from 'node:cluster';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import type { Logger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, RpcClient, declareExchanges, topologyNames } from '@feedback/messaging';
import { Lifecycle, brokerAndDatabaseChecks, closeServer, createMetricsRegistry, registerReadinessMetric, retentionPruning, startHealthServer } from '@feedback/service-runtime';
import type { CheckStatus, PeriodicTask, ShutdownStep } from '@feedback/service-runtime';
import { ApiInstancePresence } from './auth/api-instance-presence.js';
import { joinCluster } from './cluster/api-cluster.js';
import { failureRateLimit } from './auth/failure-rate-limit.js';
import { publicKeyAuth } from './auth/public-key-auth.js';
import { RequestLimits } from './limits/request-limits.js';
import { pruneRateLimits } from './limits/prune-rate-limits.js';
import { KeyChangeListener } from './auth/key-change-listener.js';
import { KeyUsageRecorder } from './auth/key-usage-recorder.js';
import { RecognisedKeys, secretKeyAuth } from './auth/secret-key-auth.js';
import { SecretKeyVerifier } from './auth/secret-key-verifier.js';
import type { ApiConfig } from './config.js';
import { connectApiDatabase, migrateApiDatabase } from './database.js';
import { pruneIdempotencyKeys } from './idempotency/prune-idempotency-keys.js';
import type { PrismaClient } from './database.js';
import { createPool } from '@feedback/database';
import { buildApp } from './http/app.js';
import { outboxMetrics } from './outbox/outbox-metrics.js';
import { pruneOutbox } from './outbox/prune-outbox.js';
import { OutboxRelay } from './outbox/relay.js';
import { poolRunner } from './sql/sql-runner.js';
import type { RouteContext } from './routes/route-context.js';
import { sessionKeys } from './auth/member-auth.js';
import { ListenHub } from './listen/listen-hub.js';
import proxyAddr from 'proxy-addr';

export interface ApiService {
  /** Where the HTTP server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Prometheus metrics, on the internal port. */
  metricsUrl: string;
  prisma: PrismaClient;
  outboxRelay: OutboxRelay;
  keyUsage: KeyUsageRecorder;
  /** What the routes are built with (the benchmark mounts the same handlers without authentication). */
  routeContext: RouteContext;
  lifecycle: Lifecycle;
  shutdownSteps(): ShutdownStep[];
  stop(): Promise<void>;
}

/** What the api deletes once it is old: published outbox events, and Idempotency-Keys with their answers. */
function retentionPruningOf(pool: pg.Pool, logger: Logger, config: ApiConfig): PeriodicTask {
  const { outboxRetentionHours, idempotencyKeyRetentionHours } = config;
  return retentionPruning(logger, [
    { what: `published outbox events older than ${outboxRetentionHours} hours`, prune: (signal) => pruneOutbox(pool, { retentionHours: outboxRetentionHours, signal }) },
    {
      what: `Idempotency-Keys older than ${idempotencyKeyRetentionHours} hours`,
      prune: (signal) => pruneIdempotencyKeys(pool, { retentionHours: idempotencyKeyRetentionHours, signal }),
    },
    { what: 'request limit counts past their window', prune: (signal) => pruneRateLimits(pool, { signal }) },
  ]);
}

/** Migrates the api's schema, starts the outbox relay and serves HTTP until stopped. */
export async function startApi(config: ApiConfig, logger: Logger): Promise<ApiService> {
  await migrateApiDatabase(config.databaseUrl, logger);
  const { prisma, pool } = connectApiDatabase(config.databaseUrl, logger, config.databasePoolSize);
  const names = topologyNames(config.brokerNamespace);
  const broker = Broker.connect({ url: config.amqpUrl, connectionName: 'api', logger });
  const metrics = createMetricsRegistry('api');
  const rpc = new RpcClient(broker, logger, { names, timeoutMs: config.rpcTimeoutMs, metrics });
  const publisher = new ConfirmedPublisher(broker, { name: 'api-publisher', setup: (channel) => declareExchanges(channel, names) });
  const outboxRelay = new OutboxRelay(pool, publisher, names, logger, { pollIntervalMs: config.outboxPollMs, metrics: outboxMetrics(metrics, pool) });
  const pruning = retentionPruningOf(pool, logger, config);

  const presence = new ApiInstancePresence(rpc, logger, config.keyCacheTtlMs);
  // The listener is made just below; until it hears changes, nothing is cached.
  const verifier: SecretKeyVerifier = new SecretKeyVerifier(rpc, () => presence.trustedUntil, { ttlMs: config.keyCacheTtlMs }, () => listener.listening);
  const listener = new KeyChangeListener(broker, names, presence.instanceId, logger, (change) => verifier.apply(change), () => verifier.clear());
  const keyUsage = new KeyUsageRecorder(publisher, names, logger);

  const lifecycle = new Lifecycle(logger);
  // A pool of its own: under a flood, counting requests never takes the connections requests need.
  const limitsPool = createPool({ connectionString: config.databaseUrl, logger, max: 4, connectTimeoutMs: 1000 });
  const limits = new RequestLimits(limitsPool, {
    logger,
    authFailuresPerMinute: config.authFailureLimit,
    signUpsPerHour: config.signUpLimit,
    signInsPerAddressPerMinute: config.signInAddressLimit,
    signInFailuresPerAccount: config.signInAccountLimit,
    widgetRequestsPerAddressPerMinute: config.widgetAddressLimit,
    widgetRequestsPerKeyPerMinute: config.widgetKeyLimit,
  });
  const keysOfSessions = sessionKeys(rpc);
  const routeContext: RouteContext = {
    prisma,
    sql: poolRunner(pool),
    rpc,
    sessionKeys: keysOfSessions,
    outboxRelay,
    links: { dashboardUrl: config.dashboardUrl, docsUrl: config.docsUrl },
    dashboardTimeoutMs: config.dashboardRpcTimeoutMs,
    erasureHashKey: Buffer.from(config.erasureHashKey, 'base64'),
    limits: { signUp: limits.signUp, signIn: limits.signIn },
  };
  const recognisedKeys = new RecognisedKeys();
  // The api serves from its key cache while the broker is away (docs/decisions.md): it stays
  // ready, the broker `degraded`, as long as that cache may be trusted, so a broker outage does not
  // take every instance out of the load balancer at once. Past its lease an instance cut off can
  // answer nothing that needs a key, and one cut off alone is better out of rotation.
  const readiness = {
    ...brokerAndDatabaseChecks(broker, prisma),
    broker: (): CheckStatus => (broker.healthy ? 'up' : Date.now() < presence.trustedUntil ? 'degraded' : 'down'),
  };
  const app = buildApp({
    context: routeContext,
    logger,
    secretKeyAuth: secretKeyAuth(verifier, keyUsage, recognisedKeys),
    // Separate counts: a browser's expired sessions do not lock out the office's integrations.
    failureRateLimits: {
      api: failureRateLimit(limits.apiFailures, { notAGuess: recognisedKeys.carriedBy }),
      dashboard: failureRateLimit(limits.dashboardFailures),
    },
    widgetLimit: limits.widget,
    publicKeyAuth: publicKeyAuth(rpc, { unknownKeyCacheMs: config.unknownPublicKeyCacheMs }),
    readiness,
    isShuttingDown: () => lifecycle.isShuttingDown,
    trustProxy: config.trustProxy,
    publicBaseUrl: config.publicBaseUrl,
    dashboardDirectory: config.dashboardFiles,
    surfaces: config.surfaces,
    metrics,
  });
  const server: Server = app.listen(config.port);
  await once(server, 'listening');
  // `feedback listen` sessions: WebSocket upgrades of the dashboard's listen route, on instances
  // that serve the dashboard; the others answer an upgrade 404, as any route they do not serve.
  const listenHub = new ListenHub({
    broker,
    rpc,
    names,
    logger,
    timeoutMs: config.dashboardRpcTimeoutMs,
    sessionKeys: keysOfSessions,
    failures: limits.dashboardFailures,
    clientAddressOf: (request) => proxyAddr(request, app.get('trust proxy fn') as (address: string, hop: number) => boolean),
    served: config.surfaces.includes('dashboard'),
  });
  listenHub.attach(server);
  // Metrics on a port of their own, beside the public one: they describe the service's load. A
  // process of a cluster gives them to its first process instead, which serves them all summed.
  let operationsServer: Server | undefined;
  if (cluster.isWorker) {
    registerReadinessMetric(metrics, readiness);
    joinCluster(metrics);
  } else {
    operationsServer = await startHealthServer({ port: config.metricsPort, lifecycle, checks: readiness, metrics });
  }
  outboxRelay.start();
  pruning.start();
  const { port } = server.address() as AddressInfo;
  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'end listen sessions', run: () => listenHub.stop() },
    { name: 'stop taking requests', run: () => closeServer(server) },
    // Before the database: a scrape reads the outbox backlog.
    { name: 'close metrics server', run: async () => operationsServer && (await closeServer(operationsServer)) },
    { name: 'stop the outbox relay (unpublished events wait in the table)', run: () => outboxRelay.stop() },
    { name: 'stop deleting old records', run: () => pruning.stop() },
    { name: 'report key usage', run: () => keyUsage.stop() },
    { name: 'end the cache lease of this instance', run: () => presence.stop() },
    { name: 'stop listening for key changes', run: () => listener.close() },
    { name: 'close rpc client', run: () => rpc.close() },
    { name: 'close publisher', run: () => publisher.close() },
    { name: 'close broker', run: () => broker.close() },
    { name: 'close database', run: () => prisma.$disconnect() },
    { name: 'close database pool', run: () => pool.end() },
    { name: 'close request limits pool', run: () => limitsPool.end() },
  ];
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: operationsServer ? `http://127.0.0.1:${(operationsServer.address() as AddressInfo).port}/metrics` : '',
    prisma,
    outboxRelay,
    keyUsage,
    routeContext,
    lifecycle,
    shutdownSteps,
    stop: () => lifecycle.shutdown(shutdownSteps()),
  };
}

export { readApiConfig } from './config.js';
export { buildApp } from './http/app.js';
export type { ApiConfig } from './config.js';
