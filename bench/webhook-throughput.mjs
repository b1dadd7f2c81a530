// Webhook delivery throughput and latency, end to end on this machine: events written to the
// api's outbox (as a state change writes them), published by its relay, fanned out and sent by
// webhook-worker processes, to a fast local HTTPS receiver; each attempt recorded.
//
//   pnpm build && node bench/webhook-throughput.mjs
//   BENCH_EVENTS=5000 BENCH_ENDPOINTS=4 BENCH_RATE=500 BENCH_RATE_SECONDS=10 node bench/webhook-throughput.mjs
//   BENCH_EVENTS=200 BENCH_ENDPOINTS=1 node bench/webhook-throughput.mjs    (latency at one endpoint)
//   BENCH_WORKERS=1 node bench/webhook-throughput.mjs                        (one worker process only)
//   BENCH_RATE_SECONDS=0 node bench/webhook-throughput.mjs                   (bursts only)
//   BENCH_WRITE_CHUNK=200                                                     (events a burst writes per transaction)
//   BENCH_LOOP_SECONDS=5                                                      (the bare loop, before and after each burst)
//   BENCH_WARMUP_EVENTS=5000 BENCH_WARMUP_RATE_SECONDS=3                       (the warm-ups; by default the burst's size, at least 2,000)
//   BENCH_SEEDED_EVENTS=5000                                                  (settled events in the history before each worker count)
//   BENCH_RECEIVER_DELAY_MS=100 node bench/webhook-throughput.mjs            (scale-out: a receiver that takes 100 ms per answer)
//
// Before and after each burst, a bare HTTPS keep-alive POST loop (bench/https-loop.mjs) measures
// what this machine can send to the same receiver then; the burst is printed as a share of their mean.
// Targets: one worker at least 35% of the bare loop; p99 event-to-delivery latency under 25 ms at
// 500 events/s to 4 endpoints. With a slow receiver: two workers at least 1.8 times one.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import pg from 'pg';
import { benchEnvironment, freePort, localReceiverWorkerEnv, machineSpeedProbe, proTeamWithApp, quiet, root, suggestionCreatedEvent, waitUntilReady, writeOutboxEvents } from './bench-support.mjs';
import { percentile } from './percentile.mjs';
import { cpuPerUnit, cpuSnapshot, machineShare, machineSnapshot } from './process-cpu.mjs';

const { testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
const { startApi, readApiConfig } = await import(`${root}services/api/dist/service.js`);

// A receiver that takes this long per answer bounds delivery, not the CPU: only bursts are
// measured, smaller ones, and the workers' figures compared with each other.
const receiverDelayMs = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
const slowReceiver = receiverDelayMs > 0;
const events = Number(process.env.BENCH_EVENTS ?? (slowReceiver ? 800 : 5000));
const endpointsPerApp = Number(process.env.BENCH_ENDPOINTS ?? 4);
const rate = Number(process.env.BENCH_RATE ?? 500);
const rateSeconds = Number(process.env.BENCH_RATE_SECONDS ?? 10);
// Warm-up before each measured phase: a burst the size of the measured one (at least 2,000
// events), and a few seconds at the measured rate. A fresh process spends its first seconds compiling its hot code (profiled: V8's
// optimising compiler was the largest share of a worker's CPU while a latency phase ran after a
// 200-event warm-up), which a service that runs for days does not; the figures are for the latter.
const warmUpEvents = Number(process.env.BENCH_WARMUP_EVENTS ?? (slowReceiver ? 100 : Math.max(events, 2000)));
const warmUpRateSeconds = Number(process.env.BENCH_WARMUP_RATE_SECONDS ?? 3);
// How long the bare loop runs before and after each burst.
const loopSeconds = Number(process.env.BENCH_LOOP_SECONDS ?? 5);
// Events a burst writes per transaction.
const burstChunk = Number(process.env.BENCH_WRITE_CHUNK ?? 200);
if (!Number.isInteger(burstChunk) || burstChunk < 1) throw new Error(`BENCH_WRITE_CHUNK must be a whole number of events, 1 or more (was ${process.env.BENCH_WRITE_CHUNK})`);
// Worker processes are added between phases, never removed: the counts go up.
const workerCounts = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
if (workerCounts.some((count, n) => !(count >= 1) || (n > 0 && count <= workerCounts[n - 1]))) {
  throw new Error(`BENCH_WORKERS must be rising worker counts, such as 1,2 (was ${process.env.BENCH_WORKERS})`);
}

const benchStartedAt = new Date();
const bench = await benchEnvironment();
const databaseUrl = bench.databaseUrl;
const certificates = testCertificates();
const env = {
  ...bench.env,
  ...localReceiverWorkerEnv(certificates.caFile),
  // One receiver takes every delivery here, so it may have 64 requests in flight instead of the
  // default 8. Measured one after the other (probe 51 to 64 ms): 3,421 and 2,743 deliveries/s with
  // one and two workers at 64, 3,005 and 2,571 at 8; latency at 500 events/s the same at both.
  PER_ENDPOINT_CONCURRENCY: '64',
  // One team stands for the many of production, so its rate is not the bound measured here.
  TEAM_DELIVERY_RATE: '100000',
  // One receiver at one host stands for the many hosts of production too, so neither the host's
  // cap nor the team's share bounds a worker below the 64 requests in flight of the bare loop. A
  // slow receiver keeps both: there the host's cap is what two workers double.
  ...(slowReceiver ? {} : { PER_HOST_CONCURRENCY: process.env.DELIVERY_PREFETCH ?? '64', PER_TEAM_CONCURRENCY: process.env.DELIVERY_PREFETCH ?? '64' }),
  // The worker's own settings may be tried from the command line, e.g. DELIVERY_PREFETCH=128.
  ...Object.fromEntries(['EVENT_PREFETCH', 'DELIVERY_PREFETCH', 'PER_ENDPOINT_CONCURRENCY', 'PER_HOST_CONCURRENCY', 'PER_TEAM_CONCURRENCY', 'TEAM_DELIVERY_RATE', 'RECORD_GATHER_MS'].filter((name) => process.env[name]).map((name) => [name, process.env[name]])),
};

// The receiver, a process of its own: answers 204 at once and notes when each delivery arrived.
const receiver = fork(new URL('./fast-receiver.mjs', import.meta.url), {
  env: { ...process.env, BENCH_RECEIVER_TLS: JSON.stringify({ tls: certificates.trusted }), BENCH_RECEIVER_DELAY_MS: String(receiverDelayMs) },
});
const ask = (question, key) =>
  new Promise((resolve) => {
    const listener = (answer) => {
      if (!(key in answer)) return;
      receiver.off('message', listener);
      resolve(answer);
    };
    receiver.on('message', listener);
    if (question) receiver.send(question);
  });
const { port: receiverPort } = await ask(undefined, 'port');
const receiverUrl = `https://localhost:${receiverPort}/hooks`;

const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
const api = await startApi(readApiConfig(env).config, quiet('api'));

async function startWorker() {
  // BENCH_WORKER_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles", profiles the workers.
  const nodeOptions = process.env.BENCH_WORKER_NODE_OPTIONS ?? '';
  // Workers log at the production default, info. BENCH_WORKER_LOG=<file> keeps their lines there
  // (BENCH_WORKER_LOG_LEVEL=debug adds one per event and per delivery, to see where time goes).
  const logFile = process.env.BENCH_WORKER_LOG;
  const healthPort = await freePort();
  const child = spawn(process.execPath, [...nodeOptions.split(' ').filter(Boolean), `${root}services/webhook-worker/dist/main.js`], {
    env: { PATH: process.env.PATH, ...env, LOG_LEVEL: process.env.BENCH_WORKER_LOG_LEVEL ?? 'info', HEALTH_PORT: String(healthPort) },
    stdio: ['ignore', logFile ? openSync(logFile, 'a') : 'ignore', 'inherit'],
  });
  child.metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
  process.on('exit', () => child.kill('SIGKILL'));
  await waitUntilReady(`http://127.0.0.1:${healthPort}/health/ready`);
  return child;
}

/** Attempts the workers put back in a throttle queue so far, and those put back before their delivery was read. */
async function throttledCounts() {
  const counts = { throttled: 0, unread: 0 };
  for (const worker of workers) {
    const text = await (await fetch(worker.metricsUrl)).text();
    counts.throttled += Number(/^feedback_webhook_attempts_throttled_total(?:{[^}]*})? (\S+)$/m.exec(text)?.[1] ?? 0);
    counts.unread += Number(/^feedback_webhook_attempts_throttled_unread_total(?:{[^}]*})? (\S+)$/m.exec(text)?.[1] ?? 0);
  }
  return counts;
}

const { token, created, dashboard } = await proTeamWithApp(api.url, bench.suffix);
const session = { token };
const app = { id: created.app.id, public_key: created.app.public_key };

const workers = [await startWorker()];
// Worker processes do not outlive the benchmark, however it ends, and go before its clean-up:
// alive, they would declare again the queues that it deletes.
const stopWorkers = () => workers.forEach((worker) => worker.kill('SIGKILL'));
process.on('exit', stopWorkers);
for (const event of ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection']) process.prependListener(event, stopWorkers);
for (let n = 0; n < endpointsPerApp; n += 1) {
  for (let tries = 0; ; tries += 1) {
    const answer = await dashboard('POST', `/apps/${app.id}/webhooks`, session.token, { name: `E${n}`, url: receiverUrl, events: ['suggestion.created'] });
    if (answer.status === 201) break;
    if (tries > 100) throw new Error(`endpoint creation failed: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// The load generator writes outbox rows as an api request's transaction would; the api's relay
// runs in this process too.
const writer = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const eventRow = () => suggestionCreatedEvent(app);
async function writeEvents(rows) {
  await writeOutboxEvents(writer, rows);
  api.outboxRelay.wake();
}

// A burst's events, written one transaction after another, each a relay batch. That lies between
// one INSERT for the whole burst and a transaction per event (bench/RESULTS.md).
async function writeBurst(rows) {
  for (let start = 0; start < rows.length; start += burstChunk) await writeEvents(rows.slice(start, start + burstChunk));
}

async function waitForDeliveries(total, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await ask('count', 'count');
    if (count >= total || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Where the time goes, first attempts of events written since `since`: event written -> relay
// transaction -> delivery created by fan-out -> attempt started by a worker -> receiver answered.
async function stages(since, slowest) {
  const { rows } = await writer.query(`
    SELECT percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM o.published_at - (d.payload ->> 'created_at')::timestamptz) * 1000) AS relay,
           percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - o.published_at) * 1000) AS fan_out,
           percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - d.created_at) * 1000) AS to_attempt,
           percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY a.duration_ms) AS request
    FROM webhooks.deliveries d JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id AND a.number = 1
    JOIN api.outbox_events o ON o.event_id = d.event_id
    WHERE o.created_at >= $1`, [since]);
  const stage = (values) => `p50 ${Math.round(values[0])} ms, p99 ${Math.round(values[1])} ms`;
  const { relay, fan_out: fanOut, to_attempt: toAttempt, request } = rows[0];
  // The same stages averaged over the slowest 1% of deliveries: which one makes the tail.
  const tail = await writer.query(`
    SELECT avg(extract(epoch FROM o.published_at - (d.payload ->> 'created_at')::timestamptz) * 1000) AS relay,
           avg(extract(epoch FROM d.created_at - o.published_at) * 1000) AS fan_out,
           avg(extract(epoch FROM a.started_at - d.created_at) * 1000) AS to_attempt,
           avg(a.duration_ms) AS request
    FROM webhooks.deliveries d JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id AND a.number = 1
    JOIN api.outbox_events o ON o.event_id = d.event_id
    WHERE d.id = ANY($1::uuid[])`, [slowest]);
  const mean = (value) => `${Math.round(value)} ms`;
  const t = tail.rows[0];
  return `event written to relay transaction ${stage(relay)}; relay transaction to fan-out ${stage(fanOut)}; fan-out to attempt ${stage(toAttempt)}; request ${stage(request)}\n  slowest 1%, mean of each stage: relay ${mean(t.relay)}, fan-out ${mean(t.fan_out)}, to attempt ${mean(t.to_attempt)}, request ${mean(t.request)}`;
}

// When a burst's events were claimed by the relay, fanned out and first attempted, counted from the
// start of its writing. It shows which stage a slow start waits on. The relay stamps a batch as it
// claims it, before the broker confirms it.
async function burstTimeline(since) {
  const { rows } = await writer.query(
    `WITH claimed AS (SELECT extract(epoch FROM published_at - $1) AS s FROM api.outbox_events WHERE created_at >= $1),
          fanned AS (SELECT extract(epoch FROM d.created_at - $1) AS s FROM webhooks.deliveries d WHERE d.created_at >= $1),
          attempted AS (SELECT extract(epoch FROM a.started_at - $1) AS s FROM webhooks.delivery_attempts a WHERE a.started_at >= $1 AND a.number = 1)
     SELECT (SELECT percentile_disc(ARRAY[0, 0.01, 0.05, 0.5, 0.95]) WITHIN GROUP (ORDER BY s) FROM claimed) AS claimed,
            (SELECT percentile_disc(ARRAY[0, 0.01, 0.05, 0.5, 0.95]) WITHIN GROUP (ORDER BY s) FROM fanned) AS fanned,
            (SELECT percentile_disc(ARRAY[0, 0.01, 0.05, 0.5, 0.95]) WITHIN GROUP (ORDER BY s) FROM attempted) AS attempted`,
    [since],
  );
  const when = (values) => (values ?? []).map((value) => Number(value).toFixed(1)).join(', ');
  const { claimed, fanned, attempted } = rows[0];
  return `first, 1%, 5%, half and 95% by (s): claimed by the relay ${when(claimed)}; fanned out ${when(fanned)}; first attempt started ${when(attempted)}`;
}

async function recordedAttempts() {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // Only the last worker count's, not the seeded history's.
  const { rows } = await client.query(`
    SELECT count(*)::int AS n,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
           percentile_disc(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99,
           count(*) FILTER (WHERE response_code IS NULL OR response_code >= 300)::int AS failed
    FROM webhooks.delivery_attempts WHERE started_at >= $1`, [benchStartedAt]);
  const errors = await client.query(`
    SELECT coalesce(error, 'HTTP ' || response_code) AS reason, count(*)::int AS n FROM webhooks.delivery_attempts
    WHERE started_at >= $1 AND (response_code IS NULL OR response_code >= 300) GROUP BY 1 ORDER BY 2 DESC LIMIT 5`, [benchStartedAt]);
  await client.end();
  const { n, p50, p99, failed } = rows[0];
  const reasons = errors.rows.map((row) => `${row.n} x ${row.reason}`).join('; ');
  return `${n} (${failed} failed${reasons ? `: ${reasons}` : ''}); request duration p50 ${p50} ms, p99 ${p99} ms`;
}

// Transactions committed in the benchmark's database so far, by every process: each is a round
// trip and a wake-up of a PostgreSQL backend, which is what small batches cost. (PostgreSQL
// publishes these counts within a second or so; the phases are longer.)
async function commits() {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const { rows } = await writer.query('SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = current_database()');
  return rows[0].n;
}
const perDelivery = (count, deliveries) => (count / deliveries).toFixed(2);

// The api (with its relay) and the load generator share this process.
const cpuGroups = () => ({ worker: workers.map((worker) => worker.pid), receiver: [receiver.pid], 'api and load': [process.pid] });

/**
 * The bare HTTPS loop's requests a second to the receiver now, with as many in flight as a worker
 * has, and the loop's own CPU per request: { requestsPerSecond, senderCpuMs }.
 */
async function bareLoop() {
  if (loopSeconds <= 0) return undefined;
  const loop = fork(new URL('./https-loop.mjs', import.meta.url), {
    env: {
      ...process.env,
      BENCH_LOOP: JSON.stringify({ url: receiverUrl, caFile: certificates.caFile, body: JSON.stringify(eventRow()), inFlight: Number(env.DELIVERY_PREFETCH ?? 64), seconds: loopSeconds }),
    },
  });
  const exited = once(loop, 'exit').then(([code]) => Promise.reject(new Error(`the bare HTTPS loop ended with code ${code}`)));
  const [{ requestsPerSecond, senderCpuMs, failed }] = await Promise.race([once(loop, 'message'), exited]);
  if (failed > 0) throw new Error(`the bare HTTPS loop had ${failed} failed requests`);
  return { requestsPerSecond, senderCpuMs };
}

async function throughput(label, burst, ceiling) {
  await ask('reset', 'reset');
  const probeMs = machineSpeedProbe();
  const commitsBefore = await commits();
  const throttledBefore = await throttledCounts();
  // Made now, not before the pauses above: each event's `created_at` is where its arrival is timed from.
  const rows = Array.from({ length: burst }, eventRow);
  const cpuBefore = cpuSnapshot(cpuGroups());
  const machineBefore = machineSnapshot();
  const started = Date.now();
  await writeBurst(rows);
  const expected = burst * endpointsPerApp;
  const delivered = await waitForDeliveries(expected, 120_000);
  const seconds = (Date.now() - started) / 1000;
  const cpu = cpuPerUnit(cpuBefore, cpuSnapshot(cpuGroups()), delivered);
  const machine = machineShare(machineBefore, machineSnapshot());
  const perSecond = Math.round(delivered / seconds);
  console.log(`${label}: ${delivered} of ${expected} deliveries in ${seconds.toFixed(2)} s = ${perSecond} deliveries/s (machine speed probe ${probeMs} ms)`);
  console.log(`  CPU per delivery: ${cpu}; PostgreSQL transactions per delivery ${perDelivery((await commits()) - commitsBefore, delivered)}`);
  console.log(`  the machine during the burst: ${machine}`);
  const throttled = await throttledCounts();
  console.log(`  attempts put back in a throttle queue per delivery: ${perDelivery(throttled.throttled - throttledBefore.throttled, delivered)}, ${perDelivery(throttled.unread - throttledBefore.unread, delivered)} of them unread`);
  // Every event of a burst is made at its start, so its latencies are its arrivals, counted from
  // then: a long tail is a host left with free places while the last deliveries waited.
  const arrivals = (await ask('report', 'latencies')).latencies.sort((a, b) => a - b);
  const by = (share) => (percentile(arrivals, share) / 1000).toFixed(1);
  console.log(`  arrived: 5% by ${by(5)} s, half by ${by(50)} s, 95% by ${by(95)} s, all by ${by(100)} s`);
  console.log(`  ${await burstTimeline(new Date(started))}`);
  if (ceiling) {
    // The loop runs again once the burst is over and its arrivals are read. The burst is compared
    // with the mean of both, since this machine's speed moves between two runs (bench/RESULTS.md).
    const after = await bareLoop();
    const [first, second] = [ceiling.requestsPerSecond, after.requestsPerSecond];
    const mean = Math.round((first + second) / 2);
    console.log(`  ${((100 * perSecond) / mean).toFixed(1)}% of the bare HTTPS loop around it, ${mean} requests/s: ${first} before, ${second} after (target: one worker at least 35%)`);
    console.log(`  the loop's sender: ${ceiling.senderCpuMs.toFixed(3)} and ${after.senderCpuMs.toFixed(3)} ms of CPU per request`);
    if (Math.max(first, second) > 1.5 * Math.min(first, second)) console.log('  the machine changed speed during the burst: compare this row with care');
  }
  return perSecond;
}

/** "1.2 (x14), 4.5 (x3)": arrival times rounded to a tenth of a second, with how many arrived then. */
function clusters(arrivalsMs) {
  const counts = new Map();
  for (const ms of [...arrivalsMs].sort((a, b) => a - b)) {
    const at = (ms / 1000).toFixed(1);
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return [...counts].map(([at, n]) => (n > 1 ? `${at} (x${n})` : at)).join(', ');
}

async function latency(label, durationSeconds) {
  await ask('reset', 'reset');
  const probeMs = machineSpeedProbe();
  const since = new Date();
  const commitsBefore = await commits();
  const cpuBefore = cpuSnapshot(cpuGroups());
  const perTick = Math.max(1, Math.round(rate / 100));
  const ticks = durationSeconds * 100;
  for (let tick = 0; tick < ticks; tick += 1) {
    const tickStart = Date.now();
    await writeEvents(Array.from({ length: perTick }, eventRow));
    const spare = 10 - (Date.now() - tickStart);
    if (spare > 0) await new Promise((resolve) => setTimeout(resolve, spare));
  }
  const expected = ticks * perTick * endpointsPerApp;
  await waitForDeliveries(expected, 60_000);
  const cpu = cpuPerUnit(cpuBefore, cpuSnapshot(cpuGroups()), expected);
  const report = await ask('report', 'latencies');
  const latencies = report.latencies.sort((a, b) => a - b);
  console.log(
    `${label}: ${perTick * 100} events/s x ${endpointsPerApp} endpoints for ${durationSeconds} s; event-to-delivery latency p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, p99 ${percentile(latencies, 99)} ms (${latencies.length} of ${expected} delivered; machine speed probe ${probeMs} ms)`,
  );
  const committed = (await commits()) - commitsBefore;
  console.log(`  stages: ${await stages(since, report.slowest)}`);
  console.log(`  slowest 1% arrived at (s into the phase): ${clusters(report.slowestArrivals)}`);
  console.log(`  TLS connections the receiver accepted, at: ${clusters(report.connectedAt) || 'none'} (${report.reusedSessions} resumed TLS sessions since the receiver started)`);
  console.log(`  CPU per delivery: ${cpu}; PostgreSQL transactions per delivery ${perDelivery(committed, expected)}`);
}

await new Promise((resolve) => setTimeout(resolve, 1000));
/** The delivery history each worker count starts without. */
const HISTORY_TABLES = 'webhooks.delivery_attempts, webhooks.deliveries, webhooks.received_events, api.outbox_events';

// Each worker count starts from the same empty, vacuumed history: otherwise the second starts on
// the first one's 100,000 rows, which cost it a third of its throughput (measured: 1,370 to 1,480
// deliveries/s after the first, 2,600 on its own, PostgreSQL's CPU per delivery three times as
// high; vacuuming and analysing those rows is the likely part).
async function emptyHistory() {
  await writer.query(`TRUNCATE ${HISTORY_TABLES}`);
  await seedHistory(SEEDED_EVENTS);
  await writer.query(`VACUUM ANALYZE ${HISTORY_TABLES}`);
}

/** Settled events each worker count finds in the history, as a production history holds thousands. */
const SEEDED_EVENTS = Number(process.env.BENCH_SEEDED_EVENTS ?? 5000);

// A history with rows in it, settled an hour ago. PostgreSQL plans the workers' statements from
// its statistics: planned from the few hundred rows a short warm-up leaves, the key lookups and
// the record scanned the whole table at each statement once the burst had grown it
// (docs/decisions.md, "Delivery measured against a bare HTTPS loop").
async function seedHistory(events) {
  await writer.query(
    `WITH events AS (
       INSERT INTO webhooks.received_events (event_id, event_type, app_id, occurred_at, received_at)
       SELECT gen_random_uuid(), 'suggestion.created', $1, now() - interval '1 hour', now() - interval '1 hour' FROM generate_series(1, $2)
       RETURNING event_id
     ), made AS (
       INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, app_id, payload, status, attempts, last_response_code, created_at, updated_at)
       SELECT gen_random_uuid(), e.id, v.event_id, 'suggestion.created', $1, $3::jsonb, 'delivered', 1, 204, now() - interval '1 hour', now() - interval '1 hour'
       FROM events v CROSS JOIN webhooks.webhook_endpoints e WHERE e.app_id = $1
       RETURNING id
     )
     INSERT INTO webhooks.delivery_attempts (id, delivery_id, number, started_at, duration_ms, response_code)
     SELECT gen_random_uuid(), id, 1, now() - interval '1 hour', 5, 204 FROM made`,
    [app.id, events, JSON.stringify(eventRow())],
  );
}

// Statistics of a history with rows in it, as autovacuum keeps them in production. The workers'
// statements were planned against the empty tables, where a scan of the whole table costs
// nothing: the fan-out then read every received event once per delivery. ANALYZE makes
// PostgreSQL plan them again.
async function analyseHistory() {
  await writer.query(`ANALYZE ${HISTORY_TABLES}`);
}

const bursts = [];
for (const count of workerCounts) {
  await emptyHistory();
  while (workers.length < count) workers.push(await startWorker());
  if (count > 1) await new Promise((resolve) => setTimeout(resolve, 2000));
  const label = count === 1 ? '1 worker' : `${count} workers`;
  await throughput(`${label}, warm-up`, warmUpEvents);
  await analyseHistory();
  // The loop's ceiling is measured against a receiver that answers at once.
  bursts.push(await throughput(label, events, slowReceiver ? undefined : await bareLoop()));
  if (slowReceiver || rateSeconds <= 0) continue;
  if (warmUpRateSeconds > 0) await latency(`${label}, warm-up`, warmUpRateSeconds);
  await latency(label, rateSeconds);
}
if (slowReceiver && bursts.length > 1) {
  const gains = workerCounts.slice(1).map((count, n) => `${count} workers ${(bursts[n + 1] / bursts[0]).toFixed(2)} times`).join(', ');
  console.log(`scale-out, receiver answering in ${receiverDelayMs} ms: ${gains} what ${workerCounts[0]} delivered (target: 2 workers at least 1.8 times 1)`);
}
const { tlsConnections } = await ask('report', 'tlsConnections');
console.log(`attempts recorded: ${await recordedAttempts()}; TLS connections accepted by the receiver: ${tlsConnections}`);

for (const worker of workers) worker.kill('SIGTERM');
await Promise.all(workers.map((worker) => once(worker, 'exit')));
receiver.send('stop');
await writer.end();
await api.stop();
await authority.stop();
await bench.drop();
