import { fileURLToPath } from 'node:url';
import { createPrismaAdapter, runMigrations } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PrismaClient } from './generated/prisma/client.js';

export const API_SCHEMA = 'api';
const MIGRATIONS = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function migrateApiDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, schema: API_SCHEMA, directory: MIGRATIONS, logger });
}

export function connectApiDatabase(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: createPrismaAdapter({ connectionString: databaseUrl, schema: API_SCHEMA }) });
}

export type { PrismaClient };
export type { Prisma } from './generated/prisma/client.js';
