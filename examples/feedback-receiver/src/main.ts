import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { FeedbackClient } from '@feedback/api-client';
import { DEFAULT_RETENTION_MS, MemoryIdempotencyStore, PostgresIdempotencyStore } from '@feedback/webhook-receiver';
import { MemoryCheckpoint, PostgresCheckpoint } from './checkpoint.js';
import { readConfig } from './config.js';
import type { ReceiverConfig } from './config.js';
import { MemoryKnownStatuses, PostgresKnownStatuses } from './known-statuses.js';
import { StdoutNotifier } from './notifier.js';
import { createReceiver } from './receiver.js';

const log = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

let config: ReceiverConfig;
try {
  config = readConfig(process.env);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(78);
}

// With DATABASE_URL, handled ids, the checkpoint and known statuses survive restarts and are
// shared by every process of the receiver; without it they live in memory.
const pool = config.databaseUrl ? new pg.Pool({ connectionString: config.databaseUrl }) : undefined;
// An idle connection the database closes (a restart, a failover) is reported here; without a
// listener it would end the process. The pool opens another when next needed.
pool?.on('error', (error) => process.stderr.write(`database connection lost while idle: ${error.message}\n`));
const idempotencyStore = pool ? new PostgresIdempotencyStore({ pool }) : new MemoryIdempotencyStore();
const checkpoint = pool ? new PostgresCheckpoint(pool) : new MemoryCheckpoint();
const statuses = pool ? new PostgresKnownStatuses(pool) : new MemoryKnownStatuses();
// Where the first sweep looks back to when there is no checkpoint yet.
const firstRunSince = new Date(Date.now() - config.recoverHours * 3_600_000);
if (pool) {
  await (idempotencyStore as PostgresIdempotencyStore).createTable();
  await (checkpoint as PostgresCheckpoint).createTable(firstRunSince);
  await (statuses as PostgresKnownStatuses).createTable();
}

const receiver = createReceiver({
  secret: config.webhookSecret,
  idempotencyStore,
  checkpoint,
  statuses,
  notifier: new StdoutNotifier(),
  source: new FeedbackClient({ secretKey: config.apiKey, baseUrl: config.apiUrl }),
  log,
});

const server = config.tls
  ? createHttpsServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, receiver.app)
  : createHttpServer(receiver.app);
server.listen(config.port, () => {
  const { port } = server.address() as AddressInfo;
  log({ listening: `${config.tls ? 'https' : 'http'}://localhost:${port}/webhooks` });
});

// Listening first, so live deliveries are taken while a sweep runs. Webhooks bring each change at
// once; the sweep, at start-up and then every SWEEP_INTERVAL_SECONDS, makes sure none is missed
// for good: while the receiver was down, or failing on some deliveries until they were abandoned.
// An API that cannot be reached is tried again within a minute: webhooks keep flowing meanwhile.
// Each sweep also forgets handled ids past their retention (the memory store forgets by itself):
// 35 days, since a member can redeliver by hand, with the same id, for 30.
async function sweep(): Promise<void> {
  let nextInSeconds = config.sweepIntervalSeconds;
  try {
    await receiver.catchUp({ firstRunSince });
  } catch (error) {
    nextInSeconds = Math.min(60, nextInSeconds);
    log({ recovery_failed: (error as Error).message, retry_in_seconds: nextInSeconds });
  }
  if (idempotencyStore instanceof PostgresIdempotencyStore) {
    // Tried again at the next sweep if it fails: nothing waits on it.
    await idempotencyStore
      .deleteOlderThan(new Date(Date.now() - DEFAULT_RETENTION_MS))
      .then((forgotten) => forgotten > 0 && log({ handled_ids_forgotten: forgotten }))
      .catch((error: Error) => log({ forgetting_handled_ids_failed: error.message }));
  }
  setTimeout(sweep, nextInSeconds * 1000).unref();
}
void sweep();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void pool?.end());
  });
}
