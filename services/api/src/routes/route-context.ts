import type { RequestHandler } from 'express';
import type { RpcClient } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';
import type { OutboxRelay } from '../outbox/relay.js';

/** What routes are given: infrastructure is passed in, never imported. */
export interface RouteContext {
  prisma: PrismaClient;
  rpc: RpcClient;
  outboxRelay: OutboxRelay;
  links: { dashboardUrl: string; docsUrl: string };
  /** Time limit of a dashboard command, which may wait for a key change to reach every instance. */
  dashboardTimeoutMs: number;
  /** Counted before a sign-up and a sign-in (RequestLimits); a route table row names its limit. Default: none. */
  limits?: { signUp: RequestHandler; signIn: RequestHandler };
}
