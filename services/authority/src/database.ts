import { fileURLToPath } from 'node:url';
import { createPrismaAdapter, runMigrations } from '@feedback/database';
import type { Logger } from '@feedback/logging';
import { PrismaClient } from './generated/prisma/client.js';

export const AUTHORITY_SCHEMA = 'authority';
const MIGRATIONS = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export async function migrateAuthorityDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, schema: AUTHORITY_SCHEMA, directory: MIGRATIONS, logger });
}

export function connectAuthorityDatabase(databaseUrl: string, poolSize?: number): PrismaClient {
  return new PrismaClient({ adapter: createPrismaAdapter({ connectionString: databaseUrl, schema: AUTHORITY_SCHEMA, max: poolSize }) });
}

export type { PrismaClient };
