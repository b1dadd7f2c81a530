import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { durableBrokerObjects } from '@feedback/messaging';
import { durableWebhookQueues } from '@feedback/webhook-worker/queues';
import { HttpsReceiver, createTestDatabase, createTestNamespace, deleteBrokerObjects, freePort, testCertificates } from '@feedback/test-support';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const AMQP_URL = process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Retries in milliseconds: a failing receiver's delivery is abandoned within seconds. */
const RETRY_DELAYS_MS = [200, 200, 200, 200, 200];

/**
 * What the browser tests' receiver answers, by path: `/ok…` accepts, `/down…` fails with an HTML
 * page (which the dashboard must show as text).
 */
function answerByPath(path: string): { status: number; headers?: Record<string, string>; body?: string } {
  if (path.startsWith('/down')) return { status: 503, headers: { 'Content-Type': 'text/html' }, body: '<h1>Down for maintenance</h1><script>alert(1)</script>' };
  return { status: 200, body: 'ok' };
}

export interface RunningSystem {
  /** Where the api listens: the dashboard is at `${baseUrl}/dashboard`. */
  baseUrl: string;
  /** The local HTTPS receiver the worker may reach (localhost is allowed, its CA trusted). */
  receiverUrl: string;
  stop(): Promise<void>;
}

async function waitUntilReady(url: string, service: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (service.exitCode !== null) throw new Error(`${name} exited with ${service.exitCode} before it was ready: see test-results/services.log`);
    const status = await fetch(url).then((answer) => answer.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} was not ready at ${url} within 60 s: see test-results/services.log`);
}

/**
 * The three real services as processes, started from their builds (`pnpm build`) the way
 * scripts/run.sh starts them, on a database and broker namespace of their own, with a local HTTPS
 * receiver for webhooks. Their logs go to test-results/services.log.
 */
export async function startSystem(): Promise<RunningSystem> {
  const database = await createTestDatabase(POSTGRES_URL);
  const namespace = createTestNamespace();
  const certificates = testCertificates();
  const receiver = await HttpsReceiver.start(certificates.trusted);
  receiver.answer = (request) => answerByPath(request.path);
  const ports = { api: await freePort(), apiMetrics: await freePort(), authority: await freePort(), worker: await freePort() };
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: database.url,
    AMQP_URL,
    BROKER_NAMESPACE: namespace,
    LOG_LEVEL: 'info',
    SESSION_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    // Every sign-up and sign-in comes from 127.0.0.1: the per-address limits would stop them.
    SIGN_UP_LIMIT: '100000',
    SIGN_IN_ADDRESS_LIMIT: '100000',
    SIGN_IN_ACCOUNT_LIMIT: '100000',
    WIDGET_ADDRESS_LIMIT: '100000',
    WIDGET_KEY_LIMIT: '100000',
    SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ERASURE_HASH_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'localhost',
    WEBHOOK_EXTRA_CA_FILE: certificates.caFile,
    WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.api}`,
    DASHBOARD_URL: `http://127.0.0.1:${ports.api}/dashboard`,
    DOCS_URL: `http://127.0.0.1:${ports.api}/docs`,
  };
  mkdirSync(`${root}apps/dashboard/test-results`, { recursive: true });
  const log = createWriteStream(`${root}apps/dashboard/test-results/services.log`);
  const start = (name: string, script: string, extra: Record<string, string>) => {
    const child = spawn(process.execPath, [script], { cwd: root, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => log.write(`[${name}] ${chunk}`));
    child.stderr.on('data', (chunk: Buffer) => log.write(`[${name}] ${chunk}`));
    return child;
  };
  const services = {
    authority: start('authority', 'services/authority/dist/main.js', { HEALTH_PORT: String(ports.authority) }),
    worker: start('worker', 'services/webhook-worker/dist/main.js', { HEALTH_PORT: String(ports.worker) }),
    api: start('api', 'services/api/dist/main.js', { PORT: String(ports.api), METRICS_PORT: String(ports.apiMetrics) }),
  };
  const stop = async () => {
    await Promise.all(
      Object.values(services).map(async (child) => {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      }),
    );
    log.end();
    await receiver.close();
    await deleteBrokerObjects(AMQP_URL, durableBrokerObjects(namespace, durableWebhookQueues(namespace, RETRY_DELAYS_MS)));
    await database.drop();
  };
  try {
    await Promise.all([
      waitUntilReady(`http://127.0.0.1:${ports.authority}/health/ready`, services.authority, 'authority'),
      waitUntilReady(`http://127.0.0.1:${ports.worker}/health/ready`, services.worker, 'webhook-worker'),
      waitUntilReady(`http://127.0.0.1:${ports.api}/health/ready`, services.api, 'api'),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl: `http://127.0.0.1:${ports.api}`, receiverUrl: receiver.url(''), stop };
}
