import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { createPool, createPrismaAdapter, runMigrations } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PrismaClient } from './generated/prisma/client.js';

export const WORKER_SCHEMA = 'webhooks';
const MIGRATIONS = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function migrateWorkerDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, schema: WORKER_SCHEMA, directory: MIGRATIONS, logger });
}

export interface WorkerDatabase {
  /** Endpoints, history, commands: everything but the delivery hot path. */
  prisma: PrismaClient;
  /**
   * The same connections, for the batched SQL of fan-out and attempts (deliveries/*-store.ts),
   * where Prisma's per-query cost was the largest share of a delivery's CPU (docs/decisions.md).
   */
  pool: pg.Pool;
}

export function connectWorkerDatabase(databaseUrl: string, logger: Logger, poolSize?: number): WorkerDatabase {
  const pool = createPool({ connectionString: databaseUrl, logger, max: poolSize });
  return { prisma: new PrismaClient({ adapter: createPrismaAdapter({ connectionString: databaseUrl, schema: WORKER_SCHEMA, pool }) }), pool };
}

export type { PrismaClient };
