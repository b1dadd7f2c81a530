// The floor under every PostgreSQL hop of event-to-delivery latency: one round trip at a time
// in the latency phase's rhythm (one every 10 ms), with nothing else of ours running. It times
// the load generator's write (five outbox-sized rows in one INSERT, committed as an api request
// commits: synchronously), the same with an asynchronous commit (as the relay's stamp commits),
// and a bare `SELECT 1`. A temporary table, so nothing is left behind.
//
//   node bench/database-round-trip.mjs
//   BENCH_SECONDS=30 node bench/database-round-trip.mjs
import pg from 'pg';
import { percentile } from './percentile.mjs';

const url = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rows = Array.from({ length: 5 }, (_, n) => JSON.stringify({ n, body: 'x'.repeat(400) }));

const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  await client.query('CREATE TEMPORARY TABLE round_trip (id bigserial PRIMARY KEY, payload jsonb NOT NULL)');
  const kinds = [
    { label: 'INSERT of 5 rows, synchronous commit', setting: 'on', sql: 'INSERT INTO round_trip (payload) SELECT unnest($1::jsonb[])', values: [rows] },
    { label: 'INSERT of 5 rows, asynchronous commit', setting: 'off', sql: 'INSERT INTO round_trip (payload) SELECT unnest($1::jsonb[])', values: [rows] },
    { label: 'SELECT 1', setting: 'on', sql: 'SELECT 1', values: [] },
  ];
  for (const kind of kinds) {
    await client.query(`SET synchronous_commit = ${kind.setting}`);
    const timings = [];
    for (let tick = 0; tick < seconds * 100; tick += 1) {
      const started = performance.now();
      await client.query(kind.sql, kind.values);
      const took = performance.now() - started;
      timings.push(took);
      if (took < 10) await new Promise((resolve) => setTimeout(resolve, 10 - took));
    }
    const sorted = timings.sort((a, b) => a - b);
    const at = (p) => percentile(sorted, p).toFixed(1);
    console.log(`${kind.label}, one every 10 ms for ${seconds} s: p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms`);
  }
} finally {
  await client.end();
}
