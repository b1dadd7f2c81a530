import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { durableBrokerObjects } from '@feedback/messaging';
import { HttpsReceiver, createTestDatabase, createTestNamespace, deleteBrokerObjects, eventually, freePort, testCertificates } from '@feedback/test-support';
import type { TestDatabase } from '@feedback/test-support';
import { verify } from '@feedback/webhook-signature';
import { call, createApp, signUpTeam } from './dashboard.js';
import { AMQP_URL, POSTGRES_URL } from './system.js';
import { durableWebhookQueues } from '../../../services/webhook-worker/src/queues/webhook-topology.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The RUN instructions of the Dockerfile's build stage, continuation lines joined. The one that
 * installs pnpm is left out: this machine has it, and the image pins the same version.
 */
function buildStageCommands(): string[] {
  const dockerfile = readFileSync(join(root, 'infra/Dockerfile'), 'utf8');
  const buildStage = dockerfile.split(/^FROM /m)[1]!;
  return buildStage
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('RUN '))
    .map((line) => line.slice('RUN '.length).trim())
    .filter((command) => !command.startsWith('npm install --global pnpm'));
}

/** What `COPY . .` takes: the working tree's files as git sees them, the ignored ones (node_modules, dist, .env) left out. */
async function copyWorkingTree(to: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree, not yet in git
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(root, file), join(to, file));
  }
}

let image: string;
/** Stops the build's commands if the test ends first (its time limit), so nothing outlives it. */
const building = new AbortController();

/**
 * One build step in the image's tree, in a process group of its own: stopping it stops the pnpm
 * and tsc processes it started too, not only its shell.
 */
async function runStep(command: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn('bash', ['-c', command], { cwd: image, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  building.signal.addEventListener('abort', stop);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`build step failed (${code}): ${command}\n${output}`);
  } finally {
    building.signal.removeEventListener('abort', stop);
  }
}

let database: TestDatabase;
const namespace = createTestNamespace();
const services: ChildProcess[] = [];
const ports = { api: 0, apiMetrics: 0, authority: 0, worker: 0 };
let receiver: HttpsReceiver;
// The keys of this run, the same for each service (each reads those it needs).
const sessionSigningKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const signingSecretEncryptionKey = randomBytes(32).toString('base64');
const erasureHashKey = randomBytes(32).toString('base64');

/** Starts a service from the image's tree the way the image's command does: `node services/<name>/dist/main.js`. */
function startService(name: string, env: Record<string, string>): void {
  const child = spawn(process.execPath, [`services/${name}/dist/main.js`], {
    cwd: image,
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      AMQP_URL,
      BROKER_NAMESPACE: namespace,
      SESSION_SIGNING_KEY: sessionSigningKey,
      SIGNING_SECRET_ENCRYPTION_KEY: signingSecretEncryptionKey,
      ERASURE_HASH_KEY: erasureHashKey,
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'localhost',
      WEBHOOK_EXTRA_CA_FILE: testCertificates().caFile,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  services.push(child);
}

// The image is built by `docker build` where Docker runs; here its build stage's commands run on
// a copy of the tree, and the services start from what they leave, as the image's command starts
// them. This keeps the slimmed production install honest: every module a service loads must be
// there, and nothing only the tests need.
beforeAll(async () => {
  image = mkdtempSync(join(tmpdir(), 'feedback-image-'));
  await copyWorkingTree(image);
  // The store this checkout installed from: where the temporary directory is on another file
  // system, pnpm would otherwise make a store of its own there, and download into it.
  const { stdout: storeDir } = await run('pnpm', ['store', 'path'], { cwd: root });
  for (const command of buildStageCommands()) {
    await runStep(command, { ...process.env, NODE_OPTIONS: '', CI: 'true', npm_config_store_dir: storeDir.trim() });
  }

  database = await createTestDatabase(POSTGRES_URL);
  receiver = await HttpsReceiver.start(testCertificates().trusted);
  [ports.api, ports.apiMetrics, ports.authority, ports.worker] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  startService('authority', { HEALTH_PORT: String(ports.authority) });
  startService('webhook-worker', { HEALTH_PORT: String(ports.worker) });
  startService('api', { PORT: String(ports.api), METRICS_PORT: String(ports.apiMetrics) });
}, 300_000);

afterAll(async () => {
  building.abort();
  try {
    await Promise.all(
      services
        .filter((child) => child.exitCode === null && child.signalCode === null)
        .map((child) => {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          return exited;
        }),
    );
    await receiver?.close();
    await deleteBrokerObjects(AMQP_URL, durableBrokerObjects(namespace, durableWebhookQueues(namespace)));
  } finally {
    await database?.drop();
    if (image) rmSync(image, { recursive: true, force: true });
  }
}, 60_000);

describe('the production image', () => {
  it('installs the services\' dependencies with the patches, and none that only the tests use', () => {
    const installed = readdirSync(join(image, 'node_modules/.pnpm'));
    for (const testOnly of ['testcontainers@', '@testcontainers+', 'dockerode@', 'jest@', 'supertest@', 'eslint@']) {
      expect(installed.filter((entry) => entry.startsWith(testOnly))).toEqual([]);
    }
    expect(installed.filter((entry) => /^(undici|amqplib)@.*_patch_hash=/.test(entry))).toHaveLength(2);
  });

  it('runs all three services, which deliver a signed webhook for a change made through the api', async () => {
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    for (const port of [ports.api, ports.authority, ports.worker]) {
      await eventually(
        async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
          return answer?.status === 200 ? true : undefined;
        },
        { what: `readiness on port ${port}`, timeoutMs: 60_000 },
      );
    }
    const owner = await signUpTeam(apiUrl, 'pro');
    const { publicKey, appId } = await createApp(apiUrl, owner.token, 'Image app');
    const endpoint = await call<{ signing_secret: string }>(apiUrl, 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
      token: owner.token,
      body: { name: 'Image receiver', url: receiver.url(), events: ['suggestion.created'] },
    });
    expect(endpoint.status).toBe(201);
    const suggested = await call(apiUrl, 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'From the image', user: { external_id: 'u-1', name: 'Ada' } } });
    expect(suggested.status).toBe(201);

    const [request] = await eventually(() => (receiver.received.length > 0 ? receiver.received : undefined), { what: 'a delivery', timeoutMs: 30_000 });
    expect(JSON.parse(request!.body)).toMatchObject({ event: 'suggestion.created', data: { suggestion: { title: 'From the image' } } });
    expect(() => verify(request!.body, request!.headers['x-service-signature'], endpoint.body.signing_secret)).not.toThrow();
  }, 120_000);

  it('serves the dashboard page it built, and the key documentation', async () => {
    for (const path of ['/dashboard/', '/dashboard/apps/1/settings/api-keys', '/docs/api-keys']) {
      const page = await fetch(`http://127.0.0.1:${ports.api}${path}`);
      expect({ path, status: page.status, type: page.headers.get('content-type') }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' });
    }
  });
});
