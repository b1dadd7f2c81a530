// What one struggling endpoint's backlog costs the rest of the system while it waits for slots:
// attempts that find the endpoint's slots taken go round a throttle queue, and each return is a
// message through the broker and a read of the database. Measured for an endpoint that is down
// (its first attempt failed, then every request hangs) and one that answers slowly (200 after
// 2 s), each behind a backlog of BENCH_BACKLOG deliveries, with the production throttle ladder
// (1, 5, 30 s) and with a single 1-second wait, as before the ladder.
//
//   pnpm build && node bench/throttle-churn.mjs
//   BENCH_BACKLOG=2000 BENCH_SETTLE_SECONDS=10 BENCH_MEASURE_SECONDS=40 BENCH_SINGLE_WAIT=1 node bench/throttle-churn.mjs
//
// Prints, per case, the attempts throttled per second in the worker (its
// feedback_webhook_attempts_throttled_total), and the CPU the worker, PostgreSQL and RabbitMQ
// spent a second meanwhile.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchEnvironment, localReceiverWorkerEnv, quiet, proTeamWithApp, root, suggestionCreatedEvent, writeOutboxEvents } from './bench-support.mjs';
import { cpuSnapshot } from './process-cpu.mjs';

const backlog = Number(process.env.BENCH_BACKLOG ?? 2000);
// Long enough for the backlog to be fanned out and past its first climbs (1 s, then 5 s), and for
// the measure to span the 30-second wait at least once.
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);
const measureSeconds = Number(process.env.BENCH_MEASURE_SECONDS ?? 40);
// BENCH_SINGLE_WAIT=0 leaves out the cases with a single 1-second wait, kept for comparison.
const withSingleWait = process.env.BENCH_SINGLE_WAIT !== '0';
const cases = [
  { endpoint: 'down', ladder: '1000,5000,30000' },
  { endpoint: 'down', ladder: '1000' },
  { endpoint: 'slow', ladder: '1000,5000,30000' },
  { endpoint: 'slow', ladder: '1000' },
].filter((one) => withSingleWait || one.ladder !== '1000');

// Each case in a process of its own, on a database and broker namespace of its own: what one
// case leaves queued must not reach the next.
if (process.env.BENCH_CASE === undefined) {
  console.log(`backlog ${backlog} deliveries, measured over ${measureSeconds} s after the backlog has settled`);
  let child;
  // Ctrl-C reaches the case as well, which cleans up and exits; a termination is passed on to it.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child?.kill('SIGTERM'));
  for (const one of cases) {
    child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_CASE: JSON.stringify(one) }, stdio: 'inherit' });
    const [code] = await new Promise((resolve) => child.once('exit', (...args) => resolve(args)));
    if (code !== 0) process.exit(code ?? 1);
  }
  process.exit(0);
}

const { endpoint, ladder } = JSON.parse(process.env.BENCH_CASE);
const { HttpsReceiver, freePort, testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
const { startApi, readApiConfig } = await import(`${root}services/api/dist/service.js`);

const bench = await benchEnvironment();
const certificates = testCertificates();
const workerHealthPort = await freePort();
const env = {
  ...bench.env,
  ...localReceiverWorkerEnv(certificates.caFile),
  // Held requests must not time out while the case is measured.
  WEBHOOK_TIMEOUT_MS: '60000',
  WEBHOOK_THROTTLE_DELAYS_MS: ladder,
};

// Down: the first attempt fails, then every request hangs until the case ends. Slow: 200 after 2 s.
let release;
const held = new Promise((resolve) => (release = resolve));
const receiver = await HttpsReceiver.start(certificates.trusted);
receiver.answer = (_request, index) => (endpoint === 'slow' ? { status: 200, delayMs: 2000 } : index === 0 ? { status: 503 } : { status: 200, until: held });

const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
const api = await startApi(readApiConfig(env).config, quiet('api'));
const worker = spawn(process.execPath, [`${root}services/webhook-worker/dist/main.js`], {
  env: { PATH: process.env.PATH, ...env, HEALTH_PORT: String(workerHealthPort) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
// The worker goes first, however the case ends: alive, it would declare again the queues that the
// clean-up deletes.
const stopWorker = () => worker.kill('SIGKILL');
process.on('exit', stopWorker);
for (const event of ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection']) process.prependListener(event, stopWorker);
const throttled = async () => {
  const text = await (await fetch(`http://127.0.0.1:${workerHealthPort}/metrics`)).text();
  return Number(/^feedback_webhook_attempts_throttled_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
};

const { token, created, dashboard } = await proTeamWithApp(api.url, bench.suffix);
const app = { id: created.app.id, public_key: created.app.public_key };
for (let tries = 0; ; tries += 1) {
  const answer = await dashboard('POST', `/apps/${app.id}/webhooks`, token, { name: 'Struggling', url: receiver.url(), events: ['suggestion.created'] });
  if (answer.status === 201) break;
  if (tries > 100) throw new Error(`endpoint creation failed: ${JSON.stringify(answer.body)}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const writer = new pg.Pool({ connectionString: bench.databaseUrl, max: 2 });
writer.on('error', () => undefined); // its connections end with the database, at the clean-up
async function writeEvents(count) {
  await writeOutboxEvents(writer, Array.from({ length: count }, () => suggestionCreatedEvent(app)));
  api.outboxRelay.wake();
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One event first: the down endpoint fails it (and is failing from then on), the slow one is slow.
await writeEvents(1);
for (let waited = 0; receiver.received.length === 0; waited += 100) {
  if (waited > 30_000) throw new Error('the first event never reached the receiver');
  await sleep(100);
}
await sleep(endpoint === 'slow' ? 2500 : 500);
for (let written = 0; written < backlog; written += 500) await writeEvents(Math.min(500, backlog - written));
await sleep(settleSeconds * 1000);

const cpuGroups = () => ({ worker: [worker.pid], bench: [process.pid] });
const cpuBefore = cpuSnapshot(cpuGroups());
const throttledBefore = await throttled();
const startedAt = performance.now();
await sleep(measureSeconds * 1000);
const throttledAfter = await throttled();
const cpuAfter = cpuSnapshot(cpuGroups());
const seconds = (performance.now() - startedAt) / 1000;
// In milliseconds a second (the snapshots count ticks of 10 ms); at least 0: a process that ended
// meanwhile (a database connection closed) takes its CPU out of the second snapshot.
const perSecond = (group) => (cpuAfter && cpuBefore ? Math.max(0, Math.round((((cpuAfter[group] ?? 0) - (cpuBefore[group] ?? 0)) * 10) / seconds)) : undefined);
const { rows } = await writer.query(`SELECT count(*)::int AS n FROM webhooks.deliveries`);
console.log(
  `${endpoint} endpoint, throttle waits ${ladder} ms: ${Math.round((throttledAfter - throttledBefore) / seconds)} attempts throttled a second ` +
    `(${rows[0].n} deliveries, ${receiver.received.length} requests received); CPU ms a second: worker ${perSecond('worker')}, ` +
    `postgres ${perSecond('postgres')}, rabbitmq ${perSecond('rabbitmq')}`,
);

release();
worker.kill('SIGKILL');
await writer.end();
await api.stop();
await authority.stop();
await receiver.close();
await bench.drop();
process.exit(0);
