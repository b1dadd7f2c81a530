import { randomBytes } from 'node:crypto';
import amqplib from 'amqplib';
import pg from 'pg';
import { resolveTestInfrastructure } from './infrastructure.js';
import type { TestInfrastructure } from './infrastructure.js';

/** A database of its own for one test file; `drop()` removes it with everything in it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

export async function createTestDatabase(postgresUrl: string): Promise<TestDatabase> {
  const name = `feedback_test_${uniqueSuffix()}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A broker namespace of its own for one test file: every exchange and queue name starts with it. */
export function createTestNamespace(): string {
  return `test-${uniqueSuffix()}.`;
}

/** Deletes the named queues and exchanges (those a test run declared under its namespace). */
export async function deleteBrokerObjects(amqpUrl: string, objects: { queues: string[]; exchanges: string[] }): Promise<void> {
  const connection = await amqplib.connect(amqpUrl);
  try {
    for (const queue of objects.queues) {
      const channel = await connection.createChannel();
      await channel.deleteQueue(queue).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    for (const exchange of objects.exchanges) {
      const channel = await connection.createChannel();
      await channel.deleteExchange(exchange).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
  } finally {
    await connection.close();
  }
}

/**
 * A database of its own for one test file, on the resolved infrastructure, migrated by `migrate`
 * and with a pool on it; `drop()` ends the pool and removes the database (and any container).
 */
export interface MigratedTestDatabase extends TestDatabase {
  pool: pg.Pool;
}

export async function createMigratedTestDatabase(
  migrate: (url: string) => Promise<void>,
  /** Infrastructure the test resolved itself (it needs the broker too): used, and left running. */
  given?: TestInfrastructure,
): Promise<MigratedTestDatabase> {
  const infrastructure = given ?? (await resolveTestInfrastructure());
  const database = await createTestDatabase(infrastructure.postgresUrl);
  try {
    await migrate(database.url);
  } catch (error) {
    await database.drop();
    if (!given) await infrastructure.stop();
    throw error;
  }
  const pool = new pg.Pool({ connectionString: database.url });
  // pool.end() does not wait for each connection to close, so dropping the database (WITH FORCE)
  // may end one the pool still holds: no fault of the test. Before that, an error is one.
  let dropping = false;
  pool.on('error', (error) => {
    if (!dropping) throw error;
  });
  return {
    url: database.url,
    pool,
    async drop() {
      dropping = true;
      await pool.end();
      await database.drop();
      if (!given) await infrastructure.stop();
    },
  };
}
