import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import type { Logger } from '@feedback/logging';
import { createPool } from './prisma-adapter.js';
import { withClient } from './with-client.js';

/**
 * Applies a service's migrations to its own PostgreSQL schema.
 *
 * Migrations live in Prisma Migrate's layout (`prisma/migrations/<timestamp>_<name>/migration.sql`)
 * and are written without a schema name: they run with `search_path` set to the service's schema.
 * We apply them ourselves rather than with `prisma migrate deploy` because Prisma's schema engine
 * is a native binary downloaded outside the npm registry (see docs/decisions.md).
 *
 * Each migration runs in its own transaction, holding an advisory lock for that transaction only,
 * so several replicas may start at once; an applied migration whose file later changed stops
 * start-up instead of drifting. No lock is held between transactions: through a pooler in
 * transaction mode (PgBouncer), consecutive transactions may run on different server connections,
 * and a session's lock would be taken on one and released, or not, on another.
 */
export interface MigrationOptions {
  connectionString: string;
  /** The service's PostgreSQL schema, created if missing. */
  schema: string;
  /** Folder holding one sub-folder per migration. */
  directory: string;
  logger: Logger;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

function checksumOf(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

export async function runMigrations(options: MigrationOptions): Promise<string[]> {
  if (!SCHEMA_NAME.test(options.schema)) throw new MigrationError(`invalid schema name "${options.schema}"`);
  const schema = `"${options.schema}"`;
  const folders = (await readdir(options.directory, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  // One connection of a pool like the services' (createPool): a database that drops packets fails
  // the start-up in 10 s, logged, instead of holding it silently until the OS gives up. It is held
  // through withClient, so one that restarts meanwhile fails the start-up with its error instead of
  // ending the process with an 'error' event nobody heard.
  const pool = createPool({ connectionString: options.connectionString, logger: options.logger, max: 1 });
  try {
    return await withClient(pool, (client) => migrate(client, options, schema, folders));
  } finally {
    await pool.end();
  }
}

async function migrate(client: pg.PoolClient, options: MigrationOptions, schema: string, folders: string[]): Promise<string[]> {
  const lockKey = `migrations:${options.schema}`;
  /**
   * Runs `work` in one transaction that holds the schema's migration lock until it ends; what
   * fails in `work` or at its commit is `failed(error)`'s (waiting for the lock is not).
   */
  const underLock = async <T>(work: () => Promise<T>, failed: (error: unknown) => unknown = (error) => error): Promise<T> => {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    try {
      const result = await work();
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw failed(error);
    }
  };
  const appliedChecksum = async (name: string) =>
    (await client.query<{ checksum: string }>(`SELECT checksum FROM ${schema}.schema_migrations WHERE name = $1`, [name])).rows[0]?.checksum;
  const applied: string[] = [];
  await underLock(async () => {
    // Created only when missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
    // database even when the schema exists, which a role given only its own schema lacks.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
         name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  for (const name of folders) {
    const sql = await readFile(join(options.directory, name, 'migration.sql'), 'utf8');
    const checksum = checksumOf(sql);
    // Named whatever failed: the migration, its record, or its commit (a deferred constraint).
    const failed = (error: unknown) => (error instanceof MigrationError ? error : new MigrationError(`migration ${name} failed: ${(error as Error).message}`, { cause: error }));
    // Looked up under the lock: another replica may have applied it a moment ago.
    const done = await underLock(async () => {
      const previous = await appliedChecksum(name);
      if (previous !== undefined) {
        if (previous !== checksum) throw new MigrationError(`migration ${name} was changed after it was applied to schema ${options.schema}`);
        return false;
      }
      await client.query(`SET LOCAL search_path TO ${schema}`);
      await client.query(sql);
      await client.query(`INSERT INTO ${schema}.schema_migrations (name, checksum) VALUES ($1, $2)`, [name, checksum]);
      return true;
    }, failed);
    if (!done) continue;
    applied.push(name);
    options.logger.info('migration applied', { schema: options.schema, migration: name });
  }
  return applied;
}
