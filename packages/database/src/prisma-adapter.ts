import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from '@feedback/logging';
import { DEFAULT_POOL_SIZE } from './pool-size.js';

export interface PoolOptions {
  connectionString: string;
  /** The service's own PostgreSQL schema. */
  schema: string;
  /** Connections in the pool. Default: DEFAULT_POOL_SIZE (10). */
  max?: number;
  /** Time limits, for tests; the defaults below otherwise. */
  limits?: Partial<typeof CONNECTION_LIMITS>;
}

/**
 * Time limits on every connection, kept in this process (no startup parameters, which PgBouncer
 * refuses). Without them, a database that stops answering (a failover that moves its address, a
 * network partition) holds each query sent to it until the kernel gives up on the connection,
 * some 15 minutes, and every query after it waits for a connection the same time: the worker's
 * messages stay unacknowledged and nothing is retried. With them a query fails, its message goes
 * back to its queue after a pause, and the connection is replaced.
 */
export const CONNECTION_LIMITS = {
  /** To open a connection, or wait for one of the pool's. */
  connectMs: 10_000,
  /**
   * For a query's answer: far beyond any statement here (erasure and pruning go in batches), so
   * only a database that has stopped answering reaches it.
   */
  queryMs: 60_000,
};

/** The pg settings for these limits; TCP keepalive also notices a dead connection while it is idle. */
function limited(options: Pick<PoolOptions, 'connectionString' | 'max' | 'limits'>): pg.PoolConfig {
  const limits = { ...CONNECTION_LIMITS, ...options.limits };
  return {
    connectionString: options.connectionString,
    max: options.max ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: limits.connectMs,
    query_timeout: limits.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * A connection pool a service may share between its Prisma client and plain SQL on a hot path.
 * A connection the server closes while it sits idle (PostgreSQL restarting, a proxy's idle
 * timeout) is an 'error' on the pool, which unheard would end the process; the pool drops that
 * connection and opens another for the next query, so it is logged, not fatal.
 */
export function createPool(options: Omit<PoolOptions, 'schema'> & { logger: Logger }): pg.Pool {
  const pool = new pg.Pool(limited(options));
  pool.on('error', (error) => options.logger.warn('database connection closed while idle; the next query opens another', { error: error.message }));
  return pool;
}

/**
 * The driver adapter every service's Prisma client is built with: on a pool of its own, or on
 * `pool` when the service shares one.
 */
export function createPrismaAdapter(options: PoolOptions & { pool?: pg.Pool }): PrismaPg {
  return new PrismaPg(options.pool ?? limited(options), { schema: options.schema });
}
