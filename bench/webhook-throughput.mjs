// Webhook delivery throughput and latency, end to end on this machine: events written to the
// api's outbox (as a state change writes them), published by its relay, fanned out and sent by
// webhook-worker processes, to a fast local HTTPS receiver; each attempt recorded.
//
//   pnpm build && node bench/webhook-throughput.mjs
//   BENCH_EVENTS=2000 BENCH_ENDPOINTS=4 BENCH_RATE=500 BENCH_RATE_SECONDS=10 node bench/webhook-throughput.mjs
//
// Targets: >= 3000 deliveries/s; p99 event-to-delivery latency < 25 ms at 500 events/s.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import pg from 'pg';
import { benchEnvironment, proTeamWithApp, quiet, root } from './bench-support.mjs';

const { testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
const { startApi, readApiConfig } = await import(`${root}services/api/dist/service.js`);

const events = Number(process.env.BENCH_EVENTS ?? 2000);
const endpointsPerApp = Number(process.env.BENCH_ENDPOINTS ?? 4);
const rate = Number(process.env.BENCH_RATE ?? 500);
const rateSeconds = Number(process.env.BENCH_RATE_SECONDS ?? 10);

const bench = await benchEnvironment();
const databaseUrl = bench.databaseUrl;
const certificates = testCertificates();
const env = {
  ...bench.env,
  OUTBOX_POLL_MS: '20',
  SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'localhost',
  WEBHOOK_EXTRA_CA_FILE: certificates.caFile,
  PER_ENDPOINT_CONCURRENCY: '64',
};

// The receiver: answers 204 at once and notes when each delivery arrived.
const arrivals = new Map(); // delivery id -> { at, createdAt }
const receiver = createServer(certificates.trusted, (request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const envelope = JSON.parse(body);
    arrivals.set(envelope.id, { at: Date.now(), createdAt: Date.parse(envelope.created_at) });
    response.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `https://localhost:${receiver.address().port}/hooks`;

const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
const api = await startApi(readApiConfig(env).config, quiet('api'));

function startWorker() {
  // BENCH_WORKER_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles", profiles the workers.
  const nodeOptions = process.env.BENCH_WORKER_NODE_OPTIONS ?? '';
  const child = spawn(process.execPath, [...nodeOptions.split(' ').filter(Boolean), `${root}services/webhook-worker/dist/main.js`], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

const { token, created, dashboard } = await proTeamWithApp(api.url, bench.suffix);
const session = { token };
const app = { id: created.app.id, public_key: created.app.public_key };

const workers = [startWorker()];
for (let n = 0; n < endpointsPerApp; n += 1) {
  for (let tries = 0; ; tries += 1) {
    const answer = await dashboard('POST', `/apps/${app.id}/webhooks`, session.token, { name: `E${n}`, url: receiverUrl, events: ['suggestion.created'] });
    if (answer.status === 201) break;
    if (tries > 100) throw new Error(`endpoint creation failed: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function eventRow() {
  const id = randomUUID();
  const now = new Date().toISOString();
  const author = { external_id: 'bench-user', name: 'Bench' };
  const payload = {
    id,
    event: 'suggestion.created',
    created_at: now,
    app,
    data: {
      suggestion: { id: 1, title: 'Bench', body: null, status: 'open', author, comment_count: 0, created_at: now, updated_at: now },
      author,
      sender: { type: 'app_user', ...author },
    },
  };
  return { eventId: id, eventType: 'suggestion.created', payload };
}

async function waitForDeliveries(total, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (arrivals.size < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return arrivals.size;
}

async function recordedAttempts() {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM webhooks.delivery_attempts`);
  await client.end();
  return rows[0].n;
}

async function throughput(label) {
  arrivals.clear();
  const rows = Array.from({ length: events }, eventRow);
  const started = Date.now();
  await api.prisma.outboxEvent.createMany({ data: rows });
  api.outboxRelay.wake();
  const expected = events * endpointsPerApp;
  const delivered = await waitForDeliveries(expected, 120_000);
  const seconds = (Date.now() - started) / 1000;
  console.log(`${label}: ${delivered} of ${expected} deliveries in ${seconds.toFixed(2)} s = ${Math.round(delivered / seconds)} deliveries/s`);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(label) {
  arrivals.clear();
  const perTick = Math.max(1, Math.round(rate / 100));
  const ticks = rateSeconds * 100;
  for (let tick = 0; tick < ticks; tick += 1) {
    const tickStart = Date.now();
    await api.prisma.outboxEvent.createMany({ data: Array.from({ length: perTick }, eventRow) });
    api.outboxRelay.wake();
    const spare = 10 - (Date.now() - tickStart);
    if (spare > 0) await new Promise((resolve) => setTimeout(resolve, spare));
  }
  const expected = ticks * perTick * endpointsPerApp;
  await waitForDeliveries(expected, 60_000);
  const latencies = [...arrivals.values()].map(({ at, createdAt }) => at - createdAt).sort((a, b) => a - b);
  console.log(
    `${label}: ${perTick * 100} events/s x ${endpointsPerApp} endpoints for ${rateSeconds} s; event-to-delivery latency p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, p99 ${percentile(latencies, 99)} ms (${latencies.length} of ${expected} delivered)`,
  );
}

await new Promise((resolve) => setTimeout(resolve, 1000));
await throughput('1 worker, warm-up');
await throughput('1 worker');
await latency('1 worker');
workers.push(startWorker());
await new Promise((resolve) => setTimeout(resolve, 2000));
await throughput('2 workers');
await latency('2 workers');
console.log(`attempts recorded: ${await recordedAttempts()}`);

for (const worker of workers) worker.kill('SIGTERM');
await Promise.all(workers.map((worker) => once(worker, 'exit')));
receiver.close();
await api.stop();
await authority.stop();
await bench.drop();
