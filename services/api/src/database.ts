import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { createPool, createPrismaAdapter, runMigrations } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PrismaClient } from './generated/prisma/client.js';

export const API_SCHEMA = 'api';
const MIGRATIONS = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function migrateApiDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, schema: API_SCHEMA, directory: MIGRATIONS, logger });
}

export interface ApiDatabase {
  /** Product data, requests and commands. */
  prisma: PrismaClient;
  /** The same connections, for the outbox relay's plain SQL (outbox/relay.ts), which runs on every write. */
  pool: pg.Pool;
}

export function connectApiDatabase(databaseUrl: string, logger: Logger, poolSize?: number): ApiDatabase {
  const pool = createPool({ connectionString: databaseUrl, logger, max: poolSize });
  return { prisma: new PrismaClient({ adapter: createPrismaAdapter({ connectionString: databaseUrl, schema: API_SCHEMA, pool }) }), pool };
}

export type { PrismaClient };
export { Prisma } from './generated/prisma/client.js';
