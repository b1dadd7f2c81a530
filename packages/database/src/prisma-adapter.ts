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
  /** How long to wait to open a connection, or for one of the pool's, for tests. Default: CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

/**
 * How long a query waits to open a connection, or for one of the pool's, before it fails. Without
 * a limit, a database that stops answering (a failover that moves its address, a partition) or a
 * pool held by slow statements keeps every later query waiting however long that lasts: the
 * worker's messages stay unacknowledged and nothing is retried. With it the query fails, and a
 * message goes back to its queue after a pause.
 *
 * Queries already sent are not limited here. A client-side limit leaves the statement running on
 * the server, and Prisma's transactions hand the connection still waiting for its answer back to
 * the pool; a server-side `statement_timeout` given as a startup parameter is refused by
 * PgBouncer (set one on the role, `ALTER ROLE … SET statement_timeout`, if wanted). A connection
 * whose peer is gone is noticed by TCP keepalive while idle; one waiting for an answer, by the
 * kernel's retransmission limit (`net.ipv4.tcp_retries2`, about 15 minutes by default).
 */
const CONNECT_TIMEOUT_MS = 10_000;

function poolConfig(options: Pick<PoolOptions, 'connectionString' | 'max' | 'connectTimeoutMs'>): pg.PoolConfig {
  return {
    connectionString: options.connectionString,
    max: options.max ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
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
  const pool = new pg.Pool(poolConfig(options));
  pool.on('error', (error) => options.logger.warn('database connection closed while idle; the next query opens another', { error: error.message }));
  return pool;
}

/**
 * The driver adapter every service's Prisma client is built with: on a pool of its own, or on
 * `pool` when the service shares one.
 */
export function createPrismaAdapter(options: PoolOptions & { pool?: pg.Pool }): PrismaPg {
  return new PrismaPg(options.pool ?? poolConfig(options), { schema: options.schema });
}
