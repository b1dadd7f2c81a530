import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { TcpProxy, createTestDatabase, resolveTestInfrastructure, untilSomeoneWaitsOn } from '@feedback/test-support';
import type { TestDatabase } from '@feedback/test-support';
import { createLogger } from '@feedback/logging';
import { MigrationError, runMigrations } from './migrations.js';

let database: TestDatabase;
let folder: string;
const logger = createLogger({ service: 'migrations-test', level: 'error' });

beforeAll(async () => {
  database = await createTestDatabase((await resolveTestInfrastructure()).postgresUrl);
  folder = await mkdtemp(join(tmpdir(), 'migrations-'));
});

afterAll(async () => {
  await database?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A folder of migrations in Prisma Migrate's layout, from name -> SQL. */
async function migrationsFolder(name: string, migrations: Record<string, string>): Promise<string> {
  const directory = join(folder, name);
  for (const [migration, sql] of Object.entries(migrations)) {
    await mkdir(join(directory, migration), { recursive: true });
    await writeFile(join(directory, migration, 'migration.sql'), sql);
  }
  return directory;
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('are applied in order, once, in the service\'s schema, however many replicas start at once', async () => {
    const directory = await migrationsFolder('replicas', {
      '2_rows': 'INSERT INTO things (name) VALUES (\'first\');',
      '1_table': 'CREATE TABLE things (name text NOT NULL);',
      '3_more': 'INSERT INTO things (name) VALUES (\'second\');',
    });
    const runs = await Promise.all(Array.from({ length: 4 }, () => runMigrations({ connectionString: database.url, schema: 'replicas', directory, logger })));
    expect(runs.flat().sort()).toEqual(['1_table', '2_rows', '3_more']);
    expect(await query('SELECT name FROM replicas.things ORDER BY name')).toEqual([{ name: 'first' }, { name: 'second' }]);
    expect(await runMigrations({ connectionString: database.url, schema: 'replicas', directory, logger })).toEqual([]);
  });

  it('run as a role that owns only its schema, made beforehand, without the right to create schemas in the database', async () => {
    const role = `schema_owner_${process.pid}`;
    // A password of its own: servers that do not trust local logins (testcontainers') ask for one.
    const password = createHash('sha256').update(`${role}:${Date.now()}`).digest('hex');
    await query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    try {
      await query(`CREATE SCHEMA owned AUTHORIZATION ${role}`);
      const directory = await migrationsFolder('owned', { '1_table': 'CREATE TABLE things (name text);' });
      const asRole = new URL(database.url);
      asRole.username = role;
      asRole.password = password;
      expect(await runMigrations({ connectionString: asRole.toString(), schema: 'owned', directory, logger })).toEqual(['1_table']);
      expect(await query('SELECT count(*)::int AS n FROM owned.things')).toEqual([{ n: 0 }]);
    } finally {
      await query('DROP SCHEMA IF EXISTS owned CASCADE');
      await query(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  it('wait for another replica\'s migration in progress, and do not apply it again', async () => {
    const directory = await migrationsFolder('waiting', { '1_table': 'CREATE TABLE things (name text);' });
    await runMigrations({ connectionString: database.url, schema: 'waiting', directory, logger });
    await migrationsFolder('waiting', { '2_column': 'ALTER TABLE things ADD COLUMN size int;' });
    // Another replica inside its transaction for the same schema, holding the lock.
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    await other.query('BEGIN');
    await other.query("SELECT pg_advisory_xact_lock(hashtext('migrations:waiting'))");
    await other.query('ALTER TABLE waiting.things ADD COLUMN size int');
    await other.query("INSERT INTO waiting.schema_migrations (name, checksum) VALUES ('2_column', $1)", [createHash('sha256').update('ALTER TABLE things ADD COLUMN size int;').digest('hex')]);
    const run = runMigrations({ connectionString: database.url, schema: 'waiting', directory, logger });
    await untilSomeoneWaitsOn(other);
    await other.query('COMMIT');
    await other.end();
    expect(await run).toEqual([]);
  });

  it('stop at a migration changed after it was applied, and at one that fails, which leaves nothing of itself', async () => {
    const directory = await migrationsFolder('drift', { '1_table': 'CREATE TABLE things (name text);' });
    await runMigrations({ connectionString: database.url, schema: 'drift', directory, logger });
    await writeFile(join(directory, '1_table', 'migration.sql'), 'CREATE TABLE things (name text, size int);');
    await expect(runMigrations({ connectionString: database.url, schema: 'drift', directory, logger })).rejects.toThrow(
      new MigrationError('migration 1_table was changed after it was applied to schema drift'),
    );

    // A statement that fails, and nothing of the migration stays.
    const broken = await migrationsFolder('broken', {
      '1_table': 'CREATE TABLE things (name text);',
      '2_broken': 'CREATE TABLE kept (id int); SELECT no_such_function();',
    });
    await expect(runMigrations({ connectionString: database.url, schema: 'broken', directory: broken, logger })).rejects.toThrow(/^migration 2_broken failed: function no_such_function\(\) does not exist/);
    expect(await query('SELECT name FROM broken.schema_migrations')).toEqual([{ name: '1_table' }]);

    // Its statements run, and it is recorded, but its commit fails (a deferred constraint).
    const failing = await migrationsFolder('failing', {
      '1_table': 'CREATE TABLE things (name text);',
      '2_broken': 'CREATE TABLE pairs (id int, UNIQUE (id) DEFERRABLE INITIALLY DEFERRED); INSERT INTO pairs VALUES (1), (1);',
    });
    await expect(runMigrations({ connectionString: database.url, schema: 'failing', directory: failing, logger })).rejects.toThrow(/^migration 2_broken failed: duplicate key/);
    expect(await query('SELECT name FROM failing.schema_migrations')).toEqual([{ name: '1_table' }]);
    expect(await query("SELECT to_regclass('failing.pairs') AS pairs")).toEqual([{ pairs: null }]);
  });
  it('fail the start-up with the error, and leave the process running, when the database connection is cut while they wait for the lock, again and again', async () => {
    const directory = await migrationsFolder('interrupted', { '1_table': 'CREATE TABLE things (name text);' });
    const target = new URL(database.url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      for (let cut = 0; cut < 10; cut += 1) {
        // Another replica inside its transaction for the same schema, holding the lock.
        await holder.query('BEGIN');
        await holder.query("SELECT pg_advisory_xact_lock(hashtext('migrations:interrupted'))");
        const run = runMigrations({ connectionString: proxy.urlFor(database.url), schema: 'interrupted', directory, logger });
        await untilSomeoneWaitsOn(holder);
        proxy.interrupt();
        await expect(run).rejects.toThrow(/terminated/);
        proxy.restore();
        await holder.query('ROLLBACK');
      }
      expect(await runMigrations({ connectionString: proxy.urlFor(database.url), schema: 'interrupted', directory, logger })).toEqual(['1_table']);
    } finally {
      await holder.end();
      await proxy.close();
    }
  });
});
