import { PrismaPg } from '@prisma/adapter-pg';

export interface PoolOptions {
  connectionString: string;
  /** The service's own PostgreSQL schema. */
  schema: string;
  /** Connections in the pool. Default: 10. */
  max?: number;
}

/** The driver adapter every service's Prisma client is built with. */
export function createPrismaAdapter(options: PoolOptions): PrismaPg {
  return new PrismaPg(
    { connectionString: options.connectionString, max: options.max ?? 10 },
    { schema: options.schema },
  );
}
