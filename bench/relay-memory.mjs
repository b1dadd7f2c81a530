// Whether the api holds on to memory as it relays events: the heap, after full garbage
// collections, of this process, which runs the api and the authority (as webhook-throughput.mjs
// runs them), between rounds of events written to the outbox at 500 a second, relayed through
// the broker to a worker process (with no endpoints: it takes the events and sends nothing).
// The heap the benchmark's trace shows growing by a megabyte a second is garbage V8 has not yet
// collected; what a full collection leaves is what the process keeps.
//
//   pnpm build && node --expose-gc bench/relay-memory.mjs
//   BENCH_ROUNDS=8 BENCH_ROUND_SECONDS=30 node --expose-gc bench/relay-memory.mjs
import { spawn } from 'node:child_process';
import pg from 'pg';
import { benchEnvironment, localReceiverWorkerEnv, proTeamWithApp, quiet, root, suggestionCreatedEvent, writeOutboxEvents } from './bench-support.mjs';

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc, to collect garbage before each reading');
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 15);

const { testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
const { startApi, readApiConfig } = await import(`${root}services/api/dist/service.js`);

const bench = await benchEnvironment();
const env = { ...bench.env, ...localReceiverWorkerEnv(testCertificates().caFile) };
const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
const api = await startApi(readApiConfig(env).config, quiet('api'));
const worker = spawn(process.execPath, [`${root}services/webhook-worker/dist/main.js`], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
process.on('exit', () => worker.kill('SIGKILL'));
const { created } = await proTeamWithApp(api.url, bench.suffix);
const app = { id: created.app.id, public_key: created.app.public_key };
const writer = new pg.Pool({ connectionString: bench.databaseUrl, max: 2 });

/** Five events every 10 ms, as the latency phase of webhook-throughput.mjs writes them. */
async function writeEvents(seconds) {
  for (let tick = 0; tick < seconds * 100; tick += 1) {
    await writeOutboxEvents(writer, Array.from({ length: 5 }, () => suggestionCreatedEvent(app)));
    api.outboxRelay.wake();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until the relay has published every event written, so each reading follows the same work. */
async function allRelayed() {
  for (let tries = 0; ; tries += 1) {
    const { rows } = await writer.query('SELECT count(*)::int AS n FROM api.outbox_events WHERE published_at IS NULL');
    if (rows[0].n === 0) return;
    if (tries > 300) throw new Error(`${rows[0].n} events not relayed within a minute: is the worker running?`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const heapAfterCollection = () => {
  global.gc();
  global.gc();
  return `${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`;
};

try {
  // The worker declares its queue as it starts; until then the relay's mandatory publishes come
  // back and events wait in the outbox. One round of a second, relayed, says it is there.
  await writeEvents(1);
  await allRelayed();
  console.log(`heap of the api's process after a full collection, after the first 500 events: ${heapAfterCollection()}`);
  for (let round = 1; round <= rounds; round += 1) {
    await writeEvents(roundSeconds);
    await allRelayed();
    console.log(`after ${round * roundSeconds} s more at 500 events/s (${round * roundSeconds * 500} events): ${heapAfterCollection()}`);
  }
  const { rows } = await writer.query('SELECT count(*)::int AS written, count(*) FILTER (WHERE published_at IS NULL)::int AS waiting FROM api.outbox_events');
  console.log(`events written ${rows[0].written}, still waiting to be relayed ${rows[0].waiting}`);
} finally {
  worker.kill('SIGKILL');
  await writer.end();
  await api.stop();
  await authority.stop();
  await bench.drop();
}
