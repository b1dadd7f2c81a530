// What PostgreSQL spends per delivery on the two statements every delivery goes through: the
// fan-out that makes it, and the record of its attempt. Each runs alone, on one connection, at
// several batch sizes. The figure is the backend's own CPU, read from /proc. A server this
// machine's /proc does not show as `postgres` gets n/a.
//
//   pnpm build && node bench/statement-cost.mjs
//   BENCH_BATCHES=1,6,12,25,100,200     (events a statement)
//   BENCH_HISTORY_EVENTS=5000           (settled events in the history before each batch size)
//   BENCH_MEASURED_EVENTS=4000          (events each batch size fans out and records)
//
// Set beside the webhook benchmark's PostgreSQL figures in docs/decisions.md ("Delivery measured
// against a bare HTTPS loop").
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { benchEnvironment, machineSpeedProbe, quiet, root, suggestionCreatedEvent } from './bench-support.mjs';

const { migrateWorkerDatabase } = await import(`${root}services/webhook-worker/dist/database.js`);
const { ErasureHashKey } = await import(`${root}services/webhook-worker/dist/deliveries/erased-users.js`);
const { FAN_OUT_SQL } = await import(`${root}services/webhook-worker/dist/deliveries/fan-out.js`);
const { RECORD_SQL } = await import(`${root}services/webhook-worker/dist/deliveries/attempt-store.js`);
const { requestHeadersOf } = await import(`${root}services/webhook-worker/dist/outbound/webhook-sender.js`);
const { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign } = await import(`${root}packages/webhook-signature/dist/index.js`);

const batches = (process.env.BENCH_BATCHES ?? '1,6,12,25,100,200').split(',').map(Number);
// Settled events in the history before each batch size, as production has: statements planned on
// empty tables scan them. Each size starts from the same history.
const historyEvents = Number(process.env.BENCH_HISTORY_EVENTS ?? 5000);
// Events each batch size fans out and records; with 4 endpoints, four times as many deliveries.
const measuredEvents = Number(process.env.BENCH_MEASURED_EVENTS ?? 4000);
const ENDPOINTS = 4;

const bench = await benchEnvironment();
await migrateWorkerDatabase(bench.databaseUrl, quiet('statement-cost'));
const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
const app = { id: 7, public_key: 'pk_live_statementcost' };
for (let n = 0; n < ENDPOINTS; n += 1) {
  await pool.query(
    `INSERT INTO webhooks.webhook_endpoints (id, team_id, app_id, name, url, events, secret_encrypted)
     VALUES ($1, $2, $3, $4, 'https://receiver.example/hooks', '{suggestion.created}', 'sealed')`,
    [randomUUID(), randomUUID(), app.id, `E${n}`],
  );
}
const pads = new ErasureHashKey(randomBytes(32)).pads;
const client = await pool.connect();
const { rows: [{ pid }] } = await client.query('SELECT pg_backend_pid() AS pid');
/** The backend's CPU so far, in ms: schedstat counts nanoseconds, where stat counts 10 ms ticks. */
const readBackendCpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
// A server on another host, or in a container with pids of its own, is not this pid here. A kernel
// that keeps no scheduler statistics shows zero.
let local;
try {
  local = readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres' && readBackendCpuMs() > 0;
} catch {
  local = false;
}
if (!local) console.log(`PostgreSQL's backend ${pid} is not a process whose CPU this machine shows: every figure is n/a`);
const backendCpuMs = () => (local ? readBackendCpuMs() : 0);

/** Fans out `events` new events in one statement; answers the deliveries made, as the worker reads them. */
async function fanOut(events) {
  const { rows } = await client.query({ name: 'fan-out', text: FAN_OUT_SQL, values: [JSON.stringify(events), pads] });
  return rows.filter((row) => row.id !== null);
}

/** Records a first attempt, delivered, for each delivery in one statement, with the request as the worker keeps it. */
async function record(deliveries) {
  const given = deliveries.map((delivery, index) => {
    const headers = { [SIGNATURE_HEADER]: sign(delivery.body, 'whsec_c3RhdGVtZW50LWNvc3Qtc2VjcmV0LTMyYnl0ZXM='), [EVENT_HEADER]: delivery.event_type, [DELIVERY_HEADER]: delivery.id };
    return {
      delivery_id: delivery.id, number: 1, started_at: new Date(), duration_ms: 12, response_code: 204, error: null, response_body_start: null,
      status: 'delivered', manual: false, request_url: delivery.url, request_headers: requestHeadersOf(headers), position: index + 1,
    };
  });
  await client.query({ name: 'record-attempts', text: RECORD_SQL, values: [JSON.stringify(given)] });
}

const newEvents = (count) => Array.from({ length: count }, () => suggestionCreatedEvent(app));
const HISTORY = 'webhooks.delivery_attempts, webhooks.deliveries, webhooks.received_events';
async function freshHistory() {
  await client.query(`TRUNCATE ${HISTORY}`);
  for (let made = 0; made < historyEvents; made += 200) await record(await fanOut(newEvents(Math.min(200, historyEvents - made))));
  await client.query(`VACUUM ANALYZE ${HISTORY}`);
}

console.log(`PostgreSQL backend CPU per delivery, ${ENDPOINTS} endpoints per event, ${measuredEvents} events per batch size; machine speed probe ${machineSpeedProbe()} ms`);
for (const size of batches) {
  await freshHistory();
  let fanOutMs = 0;
  let recordMs = 0;
  for (let done = 0; done < measuredEvents; done += size) {
    const before = backendCpuMs();
    const deliveries = await fanOut(newEvents(Math.min(size, measuredEvents - done)));
    const between = backendCpuMs();
    await record(deliveries);
    fanOutMs += between - before;
    recordMs += backendCpuMs() - between;
  }
  const perDelivery = (ms) => (local ? (ms / (measuredEvents * ENDPOINTS)).toFixed(3) : 'n/a');
  console.log(`  ${String(size).padStart(3)} events a statement: fan-out ${perDelivery(fanOutMs)} ms, record ${perDelivery(recordMs)} ms, both ${perDelivery(fanOutMs + recordMs)} ms`);
}

client.release();
await pool.end();
await bench.drop();
