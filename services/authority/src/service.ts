import type { Server } from 'node:http';
import type { Logger } from '@feedback/logging';
import { Broker, serveRpc, topologyNames } from '@feedback/messaging';
import { Lifecycle, closeServer, startHealthServer } from '@feedback/service-runtime';
import type { ShutdownStep } from '@feedback/service-runtime';
import type { AuthorityConfig } from './config.js';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from './database.js';
import type { PrismaClient } from './database.js';
import { verifySecretKey } from './keys/verify-secret-key.js';

export interface AuthorityService {
  prisma: PrismaClient;
  healthServer: Server;
  lifecycle: Lifecycle;
  shutdownSteps(): ShutdownStep[];
  stop(): Promise<void>;
}

/** Migrates the authority's schema, then answers its RPC methods until stopped. */
export async function startAuthority(config: AuthorityConfig, logger: Logger): Promise<AuthorityService> {
  await migrateAuthorityDatabase(config.databaseUrl, logger);
  const prisma = connectAuthorityDatabase(config.databaseUrl);
  const names = topologyNames(config.brokerNamespace);
  const broker = Broker.connect({ url: config.amqpUrl, connectionName: 'authority', logger });
  const rpc = serveRpc(broker, logger, {
    service: 'authority',
    names,
    handlers: { 'authority.verifySecretKey': verifySecretKey(prisma) },
  });
  const lifecycle = new Lifecycle(logger);
  const healthServer = await startHealthServer({
    port: config.healthPort,
    lifecycle,
    checks: {
      broker: () => broker.connected,
      database: async () => (await prisma.$queryRaw`SELECT 1`, true),
    },
  });
  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'stop answering rpc', run: () => rpc.stop() },
    { name: 'close broker', run: () => broker.close() },
    { name: 'close database', run: () => prisma.$disconnect() },
    { name: 'close health server', run: () => closeServer(healthServer) },
  ];
  return {
    prisma,
    healthServer,
    lifecycle,
    shutdownSteps,
    stop: () => lifecycle.shutdown(shutdownSteps()),
  };
}

export { readAuthorityConfig } from './config.js';
export type { AuthorityConfig } from './config.js';
export { createApp, createTeam, NEW_KEY_SCOPES } from './tenancy/create-app.js';
