// What the benchmarks need: a database and a broker namespace of their own, the base
// environment of the services, a silent logger, and the built modules they start.
import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import winston from 'winston';

export const root = fileURLToPath(new URL('..', import.meta.url));
const { createLogger } = await import(`${root}packages/logging/dist/index.js`);
const { durableBrokerObjects } = await import(`${root}packages/messaging/dist/index.js`);
const { durableWebhookQueues } = await import(`${root}services/webhook-worker/dist/queues/webhook-topology.js`);
const { deleteBrokerObjects } = await import(`${root}packages/test-support/dist/index.js`);

/**
 * Creates a throwaway database and broker namespace; `drop()` removes both (left behind, quorum
 * queues slow the broker for everything else on the machine). It also runs when the benchmark
 * stops on an error or Ctrl-C.
 */
export async function benchEnvironment() {
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const suffix = randomBytes(4).toString('hex');
  const database = `feedback_bench_${suffix}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = Object.assign(new URL(postgresUrl), { pathname: `/${database}` }).toString();
  const amqpUrl = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
  const namespace = `bench-${suffix}.`;
  let dropped;
  const drop = () => {
    dropped ??= (async () => {
      await deleteBrokerObjects(amqpUrl, durableBrokerObjects(namespace, durableWebhookQueues(namespace)));
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    })();
    return dropped;
  };
  const dropAndExit = (code) => () => {
    drop().finally(() => process.exit(code));
  };
  process.once('SIGINT', dropAndExit(130));
  process.once('SIGTERM', dropAndExit(143));
  process.once('uncaughtException', (error) => {
    console.error(error);
    dropAndExit(1)();
  });
  process.once('unhandledRejection', (error) => {
    console.error(error);
    dropAndExit(1)();
  });
  return {
    suffix,
    databaseUrl,
    env: {
      DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      BROKER_NAMESPACE: namespace,
      PORT: '0',
      HEALTH_PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'error',
      SESSION_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      ERASURE_HASH_KEY: randomBytes(32).toString('base64'),
      // Every sign-up and sign-in comes from 127.0.0.1: the per-address limits would stop them.
      SIGN_UP_LIMIT: '100000',
      SIGN_IN_ADDRESS_LIMIT: '100000',
      SIGN_IN_ACCOUNT_LIMIT: '100000',
      WIDGET_ADDRESS_LIMIT: '100000',
      WIDGET_KEY_LIMIT: '100000',
    },
    drop,
  };
}

/** What a worker needs to seal secrets and send to a benchmark's local HTTPS receiver, whose certificate `caFile` signed. */
export const localReceiverWorkerEnv = (caFile) => ({
  SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'localhost',
  WEBHOOK_EXTRA_CA_FILE: caFile,
});

export const quiet = (service) => createLogger({ service, level: 'error', transports: [new winston.transports.Console({ silent: true })] });

/** Signs up a Pro team with one app through the dashboard; answers the session token, the app, and its key (shown by its first rotation). */
export async function proTeamWithApp(apiUrl, suffix) {
  const dashboard = async (method, path, token, body) => {
    const response = await fetch(`${apiUrl}/dashboard/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body && JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  };
  const { body: session } = await dashboard('POST', '/sign-up', undefined, {
    team_name: 'Bench', name: 'Bench', email: `bench-${suffix}@example.com`, password: 'benchmark password',
  });
  await dashboard('PATCH', '/team', session.token, { plan: 'pro' });
  const { status: createdStatus, body: created } = await dashboard('POST', '/apps', session.token, { name: 'Bench app' });
  if (createdStatus !== 201) throw new Error(`app creation failed: ${createdStatus} ${JSON.stringify(created)}`);
  // A key is shown only by a rotation.
  const { status: rotatedStatus, body: rotated } = await dashboard('POST', `/apps/${created.app.id}/api-key/rotate`, session.token);
  if (rotatedStatus !== 200) throw new Error(`key rotation failed: ${rotatedStatus} ${JSON.stringify(rotated)}`);
  return { token: session.token, created, secretKey: rotated.secret_key, dashboard };
}

/**
 * This machine's speed at the moment, in milliseconds for a fixed piece of CPU work (HMACs of a
 * delivery-sized body, then arithmetic): lower is faster. The development machine's speed moves by
 * half from minute to minute, so a benchmark prints this beside its figures and runs are compared
 * at similar speeds. Best of three, taken while the system is idle.
 */
export function machineSpeedProbe() {
  const body = 'x'.repeat(700);
  const once = () => {
    const started = performance.now();
    for (let n = 0; n < 20_000; n += 1) createHmac('sha256', 'probe').update(body).digest('hex');
    let sum = 0;
    for (let n = 0; n < 3_000_000; n += 1) sum += Math.sqrt(n);
    return sum > 0 ? performance.now() - started : 0;
  };
  once();
  return Math.round(Math.min(once(), once(), once()));
}

/** A `suggestion.created` event of `app` (`{ id, public_key }`), as the api writes it to its outbox. */
export function suggestionCreatedEvent(app) {
  const id = randomUUID();
  const now = new Date().toISOString();
  const author = { external_id: 'bench-user', name: 'Bench' };
  const suggestion = { id: 1, title: 'Bench', body: null, status: 'open', author, comment_count: 0, created_at: now, updated_at: now };
  return { id, event: 'suggestion.created', created_at: now, app, data: { suggestion, author, sender: { type: 'app_user', ...author } } };
}

/**
 * Writes events to the api's outbox in one INSERT, as an api request's transaction would, with
 * plain SQL so that the load's own cost stays small beside the relay it feeds. The caller wakes the relay.
 */
export async function writeOutboxEvents(pool, events) {
  await pool.query(`INSERT INTO api.outbox_events (event_id, event_type, payload) SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[])`, [
    events.map((event) => event.id),
    events.map((event) => event.event),
    events.map((event) => JSON.stringify(event)),
  ]);
}

/** A TCP port free at the moment, for a service process the benchmark starts. */
export async function freePort() {
  const { createServer } = await import('node:net');
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until `url` answers 200 (a service's /health/ready). */
export async function waitUntilReady(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not ready within ${timeoutMs} ms: ${url}`);
}

/**
 * A webhook worker from its build, a process of its own, ready: bound to `domain.events`, so the
 * api's relay has a queue for every event, as in production. Its lines go to `log` (a file
 * descriptor), or nowhere. Killed when the benchmark exits.
 */
export async function startWorkerProcess(env, { log = 'ignore', nodeOptions = '' } = {}) {
  const { spawn } = await import('node:child_process');
  const healthPort = await freePort();
  const child = spawn(process.execPath, [...nodeOptions.split(' ').filter(Boolean), `${root}services/webhook-worker/dist/main.js`], {
    env: { PATH: process.env.PATH, SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'info', ...env, HEALTH_PORT: String(healthPort) },
    stdio: ['ignore', log, 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  await waitUntilReady(`http://127.0.0.1:${healthPort}/health/ready`);
  return child;
}
