import type { Server } from 'node:http';
import type { Logger } from '@feedback/logging';
import { Broker, serveRpc, topologyNames } from '@feedback/messaging';
import { Lifecycle, PeriodicTask, brokerAndDatabaseChecks, closeServer, createMetricsRegistry, retentionPruning, startHealthServer } from '@feedback/service-runtime';
import type { ShutdownStep } from '@feedback/service-runtime';
import { memberAccess } from './access/actor.js';
import type { AuthorityConfig } from './config.js';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from './database.js';
import type { PrismaClient } from './database.js';
import { apiInstanceLeases } from './keys/api-instances.js';
import { KeyChangeNotifier } from './keys/key-change-notifier.js';
import { keyCommands } from './keys/key-commands.js';
import { consumeKeyUsage } from './keys/key-usage-consumer.js';
import { verifySecretKey } from './keys/verify-secret-key.js';
import { memberCommands } from './members/members.js';
import { PasswordHashing } from './members/password-hashing.js';
import { pruneMemberSessions } from './members/prune-sessions.js';
import { SessionSigner } from './members/session-tokens.js';
import { sessionCommands } from './members/sessions.js';
import { changePlanCommand } from './teams/change-plan.js';
import { PlanChanges, planChangePublisher } from './teams/plan-changes.js';

export interface AuthorityService {
  prisma: PrismaClient;
  healthServer: Server;
  lifecycle: Lifecycle;
  shutdownSteps(): ShutdownStep[];
  stop(): Promise<void>;
}

/** Added to an api instance's cache lifetime: two missed heartbeats and some clock skew. */
const API_INSTANCE_LEASE_GRACE_MS = 5_000;

/** How often plan changes a failed publish left behind are published again. */
const PLAN_CHANGE_SWEEP_MS = 5_000;

/** Migrates the authority's schema, then answers its RPC methods until stopped. */
export async function startAuthority(config: AuthorityConfig, logger: Logger): Promise<AuthorityService> {
  const signer = new SessionSigner(config.sessionSigningKey);
  await migrateAuthorityDatabase(config.databaseUrl, logger);
  const prisma = connectAuthorityDatabase(config.databaseUrl, config.databasePoolSize);
  const names = topologyNames(config.brokerNamespace);
  const broker = Broker.connect({ url: config.amqpUrl, connectionName: 'authority', logger });
  const leases = apiInstanceLeases(prisma, API_INSTANCE_LEASE_GRACE_MS);
  const notifier = new KeyChangeNotifier(broker, names, logger, leases, config.keyChangeTimeoutMs);
  const access = memberAccess(prisma, signer);
  const sessions = sessionCommands(prisma, signer, access, { ttlSeconds: config.sessionTtlSeconds, maxSeconds: config.sessionMaxSeconds }, logger);
  const hashing = new PasswordHashing({ concurrency: config.passwordHashingConcurrency, queue: config.passwordHashingQueue });
  const members = memberCommands(prisma, signer, access, sessions, hashing);
  const keys = keyCommands(prisma, access, notifier, signer);
  const metrics = createMetricsRegistry('authority');
  // The authority calls no other service: a plan change goes out as `team.plan_changed`.
  const planPublisher = planChangePublisher(broker, names);
  const planChanges = new PlanChanges(prisma, planPublisher.publish, logger);
  const changePlan = changePlanCommand(prisma, access, notifier, planChanges);
  const planSweep = new PeriodicTask({
    name: 'publishing plan changes left behind',
    intervalMs: PLAN_CHANGE_SWEEP_MS,
    logger,
    run: async () => void (await planChanges.publishPending()),
  });
  // Two queues, two consumers: the api's key checks and lease renewals never wait behind member
  // commands, whose password hashing a flood of sign-ups can keep busy.
  const hotHandlers = {
    'authority.verifySecretKey': verifySecretKey(prisma),
    'authority.verifyPublicKey': keys.verifyPublicKey,
    'authority.getSessionKeys': members.getSessionKeys,
    'authority.registerApiInstance': leases.register,
    'authority.unregisterApiInstance': leases.unregister,
  } as const;
  const hotRpc = serveRpc(broker, logger, { service: 'authority', lane: 'hot', names, metrics, prefetch: 50, handlers: hotHandlers });
  const rpc = serveRpc(broker, logger, {
    service: 'authority',
    names,
    metrics,
    // An api of the release before the lanes sends its key checks here, until it is replaced.
    olderCallers: hotHandlers,
    handlers: {
      'authority.signUp': members.signUp,
      'authority.signIn': members.signIn,
      'authority.getSession': sessions.getSession,
      'authority.renewSession': sessions.renewSession,
      'authority.endSession': sessions.endSession,
      'authority.getTeam': members.getTeam,
      'authority.listMembers': members.listMembers,
      'authority.addMember': members.addMember,
      'authority.changeRole': members.changeRole,
      'authority.removeMember': members.removeMember,
      'authority.changePlan': changePlan,
      'authority.listApps': keys.listApps,
      'authority.getApp': keys.getApp,
      'authority.authorizeWebhookManagement': keys.authorizeWebhookManagement,
      'authority.createApp': keys.createApp,
      'authority.getApiKey': keys.getApiKey,
      'authority.changeKeyScopes': keys.changeKeyScopes,
      'authority.revokeKey': keys.revokeKey,
      'authority.restoreKey': keys.restoreKey,
      'authority.rotateKey': keys.rotateKey,
      'authority.listKeyAudit': keys.listKeyAudit,
    },
  });
  const usage = consumeKeyUsage(broker, names, prisma, logger, metrics);
  const pruning = retentionPruning(logger, [{ what: 'ended and expired member sessions', prune: (signal) => pruneMemberSessions(prisma, { signal }) }]);
  pruning.start();
  planSweep.start();
  const lifecycle = new Lifecycle(logger);
  const healthServer = await startHealthServer({
    port: config.healthPort,
    lifecycle,
    checks: brokerAndDatabaseChecks(broker, prisma),
    metrics,
  });
  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'stop answering rpc', run: async () => void (await Promise.all([rpc.stop(), hotRpc.stop()])) },
    { name: 'stop recording key usage', run: () => usage.stop() },
    { name: 'stop deleting old sessions', run: () => pruning.stop() },
    { name: 'stop publishing plan changes left behind', run: () => planSweep.stop() },
    { name: 'close plan change publisher', run: () => planPublisher.close() },
    { name: 'close key change notifier', run: () => notifier.close() },
    { name: 'close broker', run: () => broker.close() },
    { name: 'close database', run: () => prisma.$disconnect() },
    { name: 'close health server', run: () => closeServer(healthServer) },
  ];
  return { prisma, healthServer, lifecycle, shutdownSteps, stop: () => lifecycle.shutdown(shutdownSteps()) };
}

export { readAuthorityConfig } from './config.js';
export type { AuthorityConfig } from './config.js';
