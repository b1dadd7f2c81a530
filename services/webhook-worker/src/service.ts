import type { Server } from 'node:http';
import type { Logger } from '@feedback/logging';
import { Broker, ConfirmedPublisher, RpcClient, serveRpc, topologyNames } from '@feedback/messaging';
import { declareWebhookTopology, webhookQueueNames } from './queues/webhook-topology.js';
import { consumeDeliveries } from './deliveries/deliver.js';
import { deliveryCommands } from './deliveries/delivery-commands.js';
import { AttemptMaker } from './deliveries/attempt-maker.js';
import { AttemptStore } from './deliveries/attempt-store.js';
import { EndpointTeams, FairShare } from './deliveries/fair-share.js';
import { ErasureHashKey, pruneErasures } from './deliveries/erased-users.js';
import { FanOut } from './deliveries/fan-out.js';
import { Recoverer, pruneEndedRecoveries } from './deliveries/recoverer.js';
import { recoveryCommands } from './deliveries/recovery-commands.js';
import { EndpointHealth } from './endpoints/endpoint-health.js';
import { countPausedEndpoints, pauseCommands, pauseFailingEndpoints } from './endpoints/endpoint-pauses.js';
import { endListenSessionOfQueue, listenSessionCommands, pruneEndedListenSessions } from './endpoints/listen-sessions.js';
import { ListenRelay, routingSender } from './outbound/listen-relay.js';
import { pruneDeliveries, pruneReceivedEvents } from './deliveries/prune-delivery-history.js';
import { WebhookMetrics } from './deliveries/webhook-metrics.js';
import { WebhookSender } from './outbound/webhook-sender.js';
import { AuthorityKeys } from '@feedback/authority-keys';
import { requiringGrants } from './access/management-grants.js';
import { endpointCommands } from './endpoints/endpoint-commands.js';
import { signingSecretResealing } from './endpoints/reseal-signing-secrets.js';
import { SecretBox } from './endpoints/signing-secrets.js';
import { EndpointUrlPolicy } from './outbound/endpoint-url-policy.js';
import { hostRefusalReporter } from './outbound/host-refusals.js';
import {
  DEFAULT_SHUTDOWN_GRACE_MS,
  Lifecycle,
  PeriodicTask,
  brokerAndDatabaseChecks,
  closeServer,
  createMetricsRegistry,
  retentionPruning,
  startHealthServer,
} from '@feedback/service-runtime';
import type { ShutdownStep } from '@feedback/service-runtime';
import type { WorkerConfig } from './config.js';
import { consumeDomainEvents } from './consumers/domain-events.js';
import { consumePlanChanges } from './consumers/plan-changes.js';
import { connectWorkerDatabase, migrateWorkerDatabase } from './database.js';
import type { PrismaClient } from './database.js';

export interface WorkerService {
  prisma: PrismaClient;
  healthServer: Server;
  lifecycle: Lifecycle;
  shutdownSteps(): ShutdownStep[];
  shutdownGraceMs: number;
  stop(): Promise<void>;
}

/** Migrates the worker's schema and consumes domain events until stopped. */
export async function startWorker(config: WorkerConfig, logger: Logger): Promise<WorkerService> {
  await migrateWorkerDatabase(config.databaseUrl, logger);
  const { prisma, pool } = connectWorkerDatabase(config.databaseUrl, logger, config.databasePoolSize);
  const names = topologyNames(config.brokerNamespace);
  const broker = Broker.connect({ url: config.amqpUrl, connectionName: 'webhook-worker', logger });
  if (config.allowedPrivateHosts.length > 0 || config.extraCaFile) {
    logger.warn('OUTBOUND SAFETY RELAXED: webhooks may go to these local hosts and trust this extra CA. Never in production.', {
      allowedPrivateHosts: config.allowedPrivateHosts,
      extraCaFile: config.extraCaFile || null,
    });
  }
  const secrets = new SecretBox(config.signingSecretEncryptionKey, config.previousSigningSecretKeys);
  // Every secret opens with the configured keys (an error in the log if not); after a change of
  // the key that seals them, the ones a previous key sealed are sealed again under the current
  // one (docs/webhooks.md, "Endpoints").
  const resealing = signingSecretResealing(pool, secrets, logger);
  const registry = createMetricsRegistry('webhook-worker');
  // The reason a host was refused, which the dashboard and the delivery history do not show.
  const hostRefused = hostRefusalReporter(registry, logger);
  const urlPolicy = new EndpointUrlPolicy(config.allowedPrivateHosts, undefined, hostRefused('save'));
  // The worker's one RPC call: the authority's public keys, on its hot lane, which verify grants.
  const authority = new RpcClient(broker, logger, { names, timeoutMs: config.rpcTimeoutMs, metrics: registry });
  const endpoints = endpointCommands(prisma, secrets, urlPolicy);
  const queues = webhookQueueNames(names, config.retryDelaysMs, config.throttleDelaysMs);
  const publisher = new ConfirmedPublisher(broker, { name: 'webhook-publisher', setup: (channel) => declareWebhookTopology(channel, queues) });
  const history = deliveryCommands(prisma, publisher, queues, logger);
  const recoverer = new Recoverer({ pool, publisher, queues, logger, inFlight: config.recoverInFlight });
  const recoveries = recoveryCommands(prisma, logger, () => recoverer.wake());
  const pauses = pauseCommands(prisma, logger);
  const listenSessions = listenSessionCommands(prisma, secrets, logger, names.listenQueue(''));
  // Endpoint commands act only on the authority's signed grant, never on the api's word alone.
  const authorityKeys = new AuthorityKeys(async () => (await authority.call('authority.getSessionKeys', {})) as never);
  const rpc = serveRpc(broker, logger, {
    service: 'webhook-worker',
    names,
    metrics: registry,
    handlers: requiringGrants(authorityKeys, {
      'webhook-worker.createEndpoint': endpoints.create,
      'webhook-worker.listEndpoints': endpoints.list,
      'webhook-worker.getEndpoint': endpoints.get,
      'webhook-worker.updateEndpoint': endpoints.update,
      'webhook-worker.deleteEndpoint': endpoints.remove,
      'webhook-worker.rotateEndpointSecret': endpoints.rotateSecret,
      'webhook-worker.sendTest': history.sendTest,
      'webhook-worker.listDeliveries': history.listDeliveries,
      'webhook-worker.getDelivery': history.getDelivery,
      'webhook-worker.redeliver': history.redeliver,
      'webhook-worker.startRecovery': recoveries.start,
      'webhook-worker.listRecoveries': recoveries.list,
      'webhook-worker.getRecovery': recoveries.get,
      'webhook-worker.cancelRecovery': recoveries.cancel,
      'webhook-worker.pauseEndpoint': pauses.pause,
      'webhook-worker.resumeEndpoint': pauses.resume,
      'webhook-worker.listWebhookAudit': pauses.audit,
      'webhook-worker.openListenSession': listenSessions.open,
      'webhook-worker.closeListenSession': listenSessions.close,
    }),
  });
  const health = new EndpointHealth({ pool, logger, flushMs: config.healthFlushMs });
  const erasureHashKey = new ErasureHashKey(Buffer.from(config.erasureHashKey, 'base64'));
  const store = new AttemptStore(pool, { erasureHashKey, recordGatherMs: config.recordGatherMs, onRecorded: (outcomes) => health.note(outcomes) });
  // Read at each scrape, once the attempt maker below exists.
  const metrics: WebhookMetrics = new WebhookMetrics(registry, () => attempts.slots);
  const sender = new WebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    allowedPrivateHosts: config.allowedPrivateHosts,
    extraCaFile: config.extraCaFile || undefined,
    onHostRefused: hostRefused('connect'),
  });
  // A `listen` session's requests go to its queue, for the api instance holding the tool's connection.
  const listenRelay = new ListenRelay({
    broker,
    logger,
    replies: names.replies,
    timeoutMs: config.webhookTimeoutMs,
    onSessionGone: (queue) => void endListenSessionOfQueue(pool, queue).catch((error: unknown) => logger.warn('an ended listen session not marked', { error })),
  });
  const attempts: AttemptMaker = new AttemptMaker({
    metrics,
    store,
    publisher,
    sender: routingSender(sender, listenRelay),
    secrets,
    queues,
    logger,
    concurrency: config.deliveryPrefetch,
    perEndpointConcurrency: config.perEndpointConcurrency,
    fairShare: {
      share: new FairShare({
        concurrency: config.deliveryPrefetch,
        perHost: config.perHostConcurrency,
        perTeam: config.perTeamConcurrency || undefined,
        teamRatePerSecond: config.teamDeliveryRate,
        registry,
      }),
      teams: new EndpointTeams(pool),
    },
  });
  const deliveries = consumeDeliveries({
    broker,
    store,
    attempts,
    publisher,
    queues,
    logger,
    metrics,
    prefetch: config.deliveryPrefetch,
    climbAfterPerSecond: config.throttleClimbPerSecond,
    onManualAttempt: () => recoverer.wake(),
  });
  const fanOut = new FanOut({ pool, publisher, queues, attempts, metrics, logger, erasureHashKey });
  // Each team's plan as the authority publishes it: the endpoint limit is enforced here, under the team's lock.
  const planChanges = consumePlanChanges({ broker, names, prisma, logger, metrics: registry });
  const events = consumeDomainEvents({
    broker,
    names,
    prisma,
    logger,
    prefetch: config.eventPrefetch,
    metrics,
    erasureHashKey,
    fanOut: (event, redelivered) => fanOut.take(event, redelivered),
  });
  const retentionDays = config.deliveryHistoryRetentionDays;
  const pruning = retentionPruning(logger, [
    { what: `settled deliveries unchanged for ${retentionDays} days`, prune: (signal) => pruneDeliveries(pool, { retentionDays, signal }) },
    { what: `received events older than ${retentionDays} days`, prune: (signal) => pruneReceivedEvents(pool, { retentionDays, signal }) },
    { what: `listen sessions ended over ${retentionDays} days ago`, prune: () => pruneEndedListenSessions(pool, retentionDays) },
    { what: 'hourly attempt counts older than two days', prune: async () => (await pool.query("DELETE FROM webhooks.endpoint_attempt_counts WHERE hour < now() - interval '2 days'")).rowCount ?? 0 },
    // A recovery's items go with it; its start and end stay in the webhook audit.
    {
      what: `recoveries ended over ${retentionDays} days ago`,
      prune: () => pruneEndedRecoveries(pool, retentionDays),
    },
    { what: `user erasures recorded over ${retentionDays} days ago`, prune: () => pruneErasures(pool, retentionDays) },
  ]);
  // Endpoints that have failed for the pause period are paused (docs/decisions.md).
  const pausing = new PeriodicTask({
    name: 'pausing failing endpoints',
    intervalMs: config.pauseCheckMs,
    logger,
    run: async () => {
      for (const paused of await pauseFailingEndpoints(pool, config.pauseAfterFailingSeconds)) {
        logger.warn('endpoint paused: every attempt has failed for the pause period', { endpointId: paused.id, appId: paused.appId });
      }
      metrics.pausedEndpoints.set(await countPausedEndpoints(pool));
    },
  });
  const lifecycle = new Lifecycle(logger);
  const healthServer = await startHealthServer({
    port: config.healthPort,
    lifecycle,
    checks: brokerAndDatabaseChecks(broker, prisma),
    metrics: registry,
  });
  pruning.start();
  resealing.start();
  health.start();
  pausing.start();
  recoverer.start();
  const shutdownSteps = (): ShutdownStep[] => [
    // All consumers at once: one still taking messages while another drains would start new
    // attempts that shutdown then has to wait for, or cut short. Attempts not yet sent go back to
    // the queue for another worker (AttemptMaker.stop), so draining waits for one request's time
    // limit at most.
    {
      name: 'stop consuming; finish rpc calls, events and the requests in flight',
      // Settled, not all: one failing to stop must not cut the others' draining short.
      run: async () => {
        attempts.stop();
        const failed = (await Promise.allSettled([rpc.stop(), events.stop(), planChanges.stop(), deliveries.singles.stop(), deliveries.groups.stop()])).filter((result) => result.status === 'rejected');
        if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
      },
    },
    { name: 'stop driving recoveries, and give them up to other workers', run: () => recoverer.stop() },
    { name: 'write endpoint health', run: () => health.stop() },
    { name: 'stop pausing failing endpoints', run: () => pausing.stop() },
    { name: 'stop deleting old delivery history', run: () => pruning.stop() },
    { name: 'stop checking and sealing signing secrets again', run: () => resealing.stop() },
    { name: 'close rpc client', run: () => authority.close() },
    { name: 'close listen relay', run: () => listenRelay.close() },
    { name: 'close publisher', run: () => publisher.close() },
    { name: 'close broker', run: () => broker.close() },
    { name: 'close webhook connections', run: async () => sender.close() },
    { name: 'close database', run: () => prisma.$disconnect() },
    { name: 'close database pool', run: () => pool.end() },
    { name: 'close health server', run: () => closeServer(healthServer) },
  ];
  return {
    prisma,
    healthServer,
    lifecycle,
    shutdownSteps,
    // Time for the requests in flight to reach their own time limit and be recorded, and for
    // the attempts not yet sent to be handed back to the queue.
    shutdownGraceMs: Math.max(DEFAULT_SHUTDOWN_GRACE_MS, config.webhookTimeoutMs + 15_000),
    stop: () => lifecycle.shutdown(shutdownSteps()),
  };
}

export { readWorkerConfig } from './config.js';
export type { WorkerConfig } from './config.js';
