// Starts api, authority and webhook-worker from their builds (pnpm build), creates the database
// if it is missing, waits until each answers ready, and stops them all on Ctrl-C or SIGTERM.
// Each service applies its own migrations at start-up.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { concurrently } from 'concurrently';
import pg from 'pg';
import { BROKER_SERVICES, applyBrokerLogins } from '../packages/messaging/dist/index.js';

const env = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/feedback',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  ...process.env,
};

/**
 * Each service's broker URL. Unless AMQP_URL is set, each gets a login of its own, made for this
 * run with rabbitmqctl, as production has them (docs/decisions.md, "A broker login per service").
 * Where rabbitmqctl cannot reach the broker, all three share guest, which a broker allows only
 * from its own host.
 */
async function brokerUrls() {
  const shared = Object.fromEntries(BROKER_SERVICES.map((service) => [service, env.AMQP_URL]));
  if (process.env.AMQP_URL) return shared;
  const logins = BROKER_SERVICES.map((service) => ({ service, user: `feedback-${service}`, password: randomBytes(12).toString('hex') }));
  try {
    await applyBrokerLogins(logins, { namespace: env.BROKER_NAMESPACE ?? '' });
  } catch (error) {
    console.log(`every service uses guest on the broker: rabbitmqctl could not make their logins (${error.message.split('\n')[0]})`);
    return shared;
  }
  console.log('each service uses a broker login of its own, made for this run');
  return Object.fromEntries(logins.map((login) => [login.service, `amqp://${login.user}:${login.password}@127.0.0.1:5672`]));
}
const amqpUrls = await brokerUrls();
if (!env.SESSION_SIGNING_KEY) {
  // A key for this run only: sessions end when the system stops. Set SESSION_SIGNING_KEY to keep them.
  env.SESSION_SIGNING_KEY = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  console.log('SESSION_SIGNING_KEY is not set: member sessions are signed with a key made for this run');
}
if (!env.SIGNING_SECRET_ENCRYPTION_KEY) {
  // Secrets sealed with it are unreadable once the run ends. Set it to keep endpoints across runs.
  env.SIGNING_SECRET_ENCRYPTION_KEY = randomBytes(32).toString('base64');
  console.log('SIGNING_SECRET_ENCRYPTION_KEY is not set: webhook signing secrets are sealed with a key made for this run');
}
if (!env.ERASURE_HASH_KEY) {
  // The api and the worker share it. Erasures recorded in an earlier run stop matching: set it to keep them.
  env.ERASURE_HASH_KEY = randomBytes(32).toString('base64');
  console.log('ERASURE_HASH_KEY is not set: erased end users are named with a key made for this run');
}
const ports = { api: env.PORT ?? '3000', apiMetrics: env.API_METRICS_PORT ?? '3003', authority: env.AUTHORITY_HEALTH_PORT ?? '3001', worker: env.WORKER_HEALTH_PORT ?? '3002' };

async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

async function waitUntilReady(name, url, deadline) {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return console.log(`${name} ready: ${url}`);
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} did not become ready at ${url}`);
}

await ensureDatabase(env.DATABASE_URL);
const { result } = concurrently(
  [
    { name: 'authority', command: 'node services/authority/dist/main.js', env: { ...env, AMQP_URL: amqpUrls.authority, HEALTH_PORT: ports.authority } },
    { name: 'worker', command: 'node services/webhook-worker/dist/main.js', env: { ...env, AMQP_URL: amqpUrls['webhook-worker'], HEALTH_PORT: ports.worker } },
    { name: 'api', command: 'node services/api/dist/main.js', env: { ...env, AMQP_URL: amqpUrls.api, PORT: ports.api, METRICS_PORT: ports.apiMetrics } },
  ],
  { prefix: 'name', killOthersOn: ['failure'], handleInput: false },
);
const deadline = Date.now() + 60_000;
await Promise.all([
  waitUntilReady('api', `http://127.0.0.1:${ports.api}/health/ready`, deadline),
  waitUntilReady('authority', `http://127.0.0.1:${ports.authority}/health/ready`, deadline),
  waitUntilReady('webhook-worker', `http://127.0.0.1:${ports.worker}/health/ready`, deadline),
]).then(
  () =>
    console.log(
      `all services ready (Ctrl-C stops)\n\n  Dashboard: open http://127.0.0.1:${ports.api}/dashboard in your browser\n  REST API:  http://127.0.0.1:${ports.api}/api/v1\n`,
    ),
  // Left running: one waiting for RabbitMQ becomes ready once it is up (one that cannot reach
  // PostgreSQL at start-up exits, and the others with it).
  (error) => console.error(`${error.message} within 60 s: see its log above (Ctrl-C stops)`),
);
await result.catch(() => process.exit(1));
