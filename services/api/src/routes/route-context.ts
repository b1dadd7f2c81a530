import type { RequestHandler } from 'express';
import type { AuthorityKeys } from '@feedback/authority-keys';
import type { RpcClient } from '@feedback/messaging';
import type { PrismaClient } from '../database.js';
import type { OutboxRelay } from '../outbox/relay.js';
import type { SqlRunner } from '../sql/sql-runner.js';

/** What routes are given: infrastructure is passed in, never imported. */
export interface RouteContext {
  prisma: PrismaClient;
  /** The same database as plain SQL, for the busiest routes: one statement, its own transaction. */
  sql: SqlRunner;
  rpc: RpcClient;
  /** The authority's public keys, verifying member sessions before the authority is asked. */
  sessionKeys: AuthorityKeys;
  outboxRelay: OutboxRelay;
  links: { dashboardUrl: string; docsUrl: string };
  /** Time limit of a dashboard command, which may wait for a key change to reach every instance. */
  dashboardTimeoutMs: number;
  /** The key of the hash that names an erased end user to the worker (ERASURE_HASH_KEY). */
  erasureHashKey: Buffer;
  /** Counted before a sign-up and a sign-in (RequestLimits); a route table row names its limit. Default: none. */
  limits?: { signUp: RequestHandler; signIn: RequestHandler };
}
