import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

export interface PoolOptions {
  connectionString: string;
  /** The service's own PostgreSQL schema. */
  schema: string;
  /** Connections in the pool. Default: 10. */
  max?: number;
}

/** A connection pool a service may share between its Prisma client and plain SQL on a hot path. */
export function createPool(options: Omit<PoolOptions, 'schema'>): pg.Pool {
  return new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10 });
}

/**
 * The driver adapter every service's Prisma client is built with: on a pool of its own, or on
 * `pool` when the service shares one.
 */
export function createPrismaAdapter(options: PoolOptions & { pool?: pg.Pool }): PrismaPg {
  return new PrismaPg(options.pool ?? { connectionString: options.connectionString, max: options.max ?? 10 }, { schema: options.schema });
}
