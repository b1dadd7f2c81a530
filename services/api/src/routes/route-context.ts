import type { RpcClient } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';
import type { OutboxRelay } from '../outbox/relay.js';

/** What routes are given: infrastructure is passed in, never imported. */
export interface RouteContext {
  prisma: PrismaClient;
  rpc: RpcClient;
  outboxRelay: OutboxRelay;
  links: { dashboardUrl: string; docsUrl: string };
}
