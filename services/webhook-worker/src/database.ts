import { fileURLToPath } from 'node:url';
import { createPrismaAdapter, runMigrations } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PrismaClient } from './generated/prisma/client.js';

export const WORKER_SCHEMA = 'webhooks';
const MIGRATIONS = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function migrateWorkerDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, schema: WORKER_SCHEMA, directory: MIGRATIONS, logger });
}

export function connectWorkerDatabase(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: createPrismaAdapter({ connectionString: databaseUrl, schema: WORKER_SCHEMA }) });
}

export type { PrismaClient };
