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
}

/**
 * A connection pool a service may share between its Prisma client and plain SQL on a hot path.
 * A connection the server closes while it sits idle (PostgreSQL restarting, a proxy's idle
 * timeout) is an 'error' on the pool, which unheard would end the process; the pool drops that
 * connection and opens another for the next query, so it is logged, not fatal.
 */
export function createPool(options: Omit<PoolOptions, 'schema'> & { logger: Logger }): pg.Pool {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? DEFAULT_POOL_SIZE });
  pool.on('error', (error) => options.logger.warn('database connection closed while idle; the next query opens another', { error: error.message }));
  return pool;
}

/**
 * The driver adapter every service's Prisma client is built with: on a pool of its own, or on
 * `pool` when the service shares one.
 */
export function createPrismaAdapter(options: PoolOptions & { pool?: pg.Pool }): PrismaPg {
  return new PrismaPg(options.pool ?? { connectionString: options.connectionString, max: options.max ?? DEFAULT_POOL_SIZE }, { schema: options.schema });
}
