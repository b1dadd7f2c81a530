// How much does checking a secret key cost a request? Throughput of GET /api/v1/suggestions?limit=1
// (a cheap handler, where authentication has nowhere to hide) and POST /api/v1/suggestions (a
// transaction with its outbox event), each with real authentication (key checksum, hash, cached lookup at the authority over RabbitMQ,
// scope check, usage recording) against the very same handler mounted behind a pass-through that
// sets the same identity. Both run in this process, one after the other, interleaved, in one run.
// A webhook worker runs beside them, a process of its own bound to `domain.events`: the relay
// publishes every event the POSTs write, and the worker fans each out, as in production.
// Target: authenticated >= 85% of unauthenticated.
//
//   pnpm build && node bench/auth-overhead.mjs            (PostgreSQL and RabbitMQ on default ports)
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=50 node bench/auth-overhead.mjs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { benchEnvironment, proTeamWithApp, quiet, root, startWorkerProcess } from './bench-support.mjs';

const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
const { startApi, readApiConfig, buildApp } = await import(`${root}services/api/dist/service.js`);
const { createMetricsRegistry } = await import(`${root}packages/service-runtime/dist/index.js`);

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const bench = await benchEnvironment();
const env = bench.env;
const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
const api = await startApi(readApiConfig(env).config, quiet('api'));
const worker = await startWorkerProcess(env);

const { token, created, secretKey, dashboard } = await proTeamWithApp(api.url, bench.suffix);
await dashboard('PATCH', `/apps/${created.app.id}/api-key`, token, { grant: ['suggestions:write'] });
await fetch(`${api.url}/api/v1/suggestions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
  body: JSON.stringify({ title: 'Seed', author: { external_id: 'seed' } }),
});

// The same routes, behind a pass-through that sets the identity the real check would.
const identity = {
  key_id: 'bench', app: { id: created.app.id, public_key: created.app.public_key }, team_id: 'bench', plan: 'pro', scopes: ['suggestions:read', 'tickets:read', 'suggestions:write'], full_access: false,
};
const unauthenticated = buildApp({
  context: api.routeContext,
  logger: quiet('api-bench'),
  secretKeyAuth: (request, _response, next) => { request.apiKey = identity; next(); },
  failureRateLimits: { api: (_request, _response, next) => next(), dashboard: (_request, _response, next) => next() },
  widgetLimit: (_request, _response, next) => next(),
  publicKeyAuth: (_request, _response, next) => next(),
  surfaces: ['api'],
  readiness: {},
  // Timed like the real one, so the two differ only in the key check.
  metrics: createMetricsRegistry('api-bench'),
  isShuttingDown: () => false,
  trustProxy: 'loopback',
  publicBaseUrl: 'http://127.0.0.1',
}).listen(0);
await once(unauthenticated, 'listening');
const unauthenticatedUrl = `http://127.0.0.1:${unauthenticated.address().port}`;

const body = JSON.stringify({ title: 'Benchmark suggestion', author: { external_id: 'bench-user', name: 'Bench' } });
const scenarios = [
  { name: 'GET /api/v1/suggestions?limit=1', method: 'GET', path: '/api/v1/suggestions?limit=1' },
  { name: 'POST /api/v1/suggestions', method: 'POST', path: '/api/v1/suggestions', body },
];

async function load(url, scenario, headers) {
  // A separate process, so the load generator does not share the servers' event loop.
  const args = ['-c', String(connections), '-d', String(seconds), '-m', scenario.method, '-j'];
  if (scenario.body) args.push('-b', scenario.body, '-H', 'content-type=application/json');
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const child = spawn(`${root}node_modules/.bin/autocannon`, [...args, `${url}${scenario.path}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  await once(child, 'close');
  const result = JSON.parse(output);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`non-2xx answers: ${JSON.stringify(result.statusCodeStats)}, errors: ${result.errors}`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const authorization = { authorization: `Bearer ${secretKey}` };
const mean = (runs, field) => runs.reduce((sum, run) => sum + run[field], 0) / runs.length;
for (const scenario of scenarios) {
  await load(api.url, scenario, authorization); // warm-up: caches, pools, JIT
  const results = { authenticated: [], unauthenticated: [] };
  for (let round = 0; round < rounds; round += 1) {
    results.unauthenticated.push(await load(unauthenticatedUrl, scenario, {}));
    results.authenticated.push(await load(api.url, scenario, authorization));
  }
  const row = (runs) => ({ 'req/s': Math.round(mean(runs, 'rps')), 'p50 ms': mean(runs, 'p50'), 'p99 ms': mean(runs, 'p99') });
  console.log(`\n${scenario.name}: ${connections} connections, ${seconds}s x ${rounds} rounds each, interleaved`);
  console.table({ unauthenticated: row(results.unauthenticated), authenticated: row(results.authenticated) });
  const ratio = mean(results.authenticated, 'rps') / mean(results.unauthenticated, 'rps');
  console.log(`authenticated / unauthenticated throughput: ${(ratio * 100).toFixed(1)}% (target >= 85%): ${ratio >= 0.85 ? 'met' : 'NOT met'}`);
}
// Every event the POSTs wrote reached a queue: the relay kept up, and none waits in the outbox.
const deadline = Date.now() + 10_000;
let waiting;
while ((waiting = await api.prisma.outboxEvent.count({ where: { publishedAt: null } })) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
console.log(`\nevents written ${await api.prisma.outboxEvent.count()}, still waiting to be relayed ${waiting}`);
unauthenticated.close();
// Before the broker objects go: alive, it would declare its queues again.
worker.kill('SIGTERM');
await once(worker, 'exit');
await api.stop();
await authority.stop();
await bench.drop();
