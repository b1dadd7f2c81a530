// REST API throughput of one api process, as a ratio to a bare route of that same process in the
// same run: GET /api/v1/suggestions?limit=25 and POST /api/v1/suggestions, each with real
// authentication, validation, its transaction and outbox event, and logging at info, against
// GET /health/live. The api runs from its build as a process of its own (the relay inside it), with
// the authority and a webhook worker beside it, so every event is published to a bound queue and
// fanned out, as in production. Load from autocannon, a process of its own, interleaved rounds.
//
//   pnpm exec tsc -b && node bench/api-throughput.mjs
//   BENCH_SECONDS=10 BENCH_ROUNDS=2 BENCH_CONNECTIONS=32 node bench/api-throughput.mjs
//   BENCH_API_PROCESSES=2 node bench/api-throughput.mjs               (the api as two processes on one port)
//   BENCH_API_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/api-prof" BENCH_SCENARIOS=list BENCH_ROUNDS=1 node bench/api-throughput.mjs
//     then node bench/profile-top.mjs /tmp/api-prof/*.cpuprofile
//
// Targets: list >= 35% and create >= 25% of the bare route's requests/s; p99 < 50 ms for both.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnvironment, freePort, machineSpeedProbe, proTeamWithApp, quiet, root, startWorkerProcess, waitUntilReady } from './bench-support.mjs';
import { cpuPerUnit, cpuSnapshot } from './process-cpu.mjs';

const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmUpSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const apiProcesses = process.env.BENCH_API_PROCESSES ?? '1';
// `bare` is the ceiling the others are compared with; leave it out only to profile one scenario alone.
const order = (process.env.BENCH_SCENARIOS ?? 'bare,list,create').split(',');

const bench = await benchEnvironment();
const logDirectory = mkdtempSync(join(tmpdir(), 'bench-api-'));
const children = [];
const stopChildren = () => children.forEach((child) => child.kill('SIGKILL'));
process.on('exit', stopChildren);
for (const event of ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection']) process.prependListener(event, stopChildren);

const authority = await startAuthority(readAuthorityConfig(bench.env).config, quiet('authority'));

/** A service from its build, its log lines (at info) kept in a file as production keeps them. */
function startService(name, main, env, nodeOptions = '') {
  const log = join(logDirectory, `${name}.log`);
  const child = spawn(process.execPath, [...nodeOptions.split(' ').filter(Boolean), `${root}${main}`], {
    env: { PATH: process.env.PATH, ...bench.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', openSync(log, 'a'), 'inherit'],
  });
  children.push(child);
  return { child, log };
}

const worker = { child: await startWorkerProcess(bench.env, { log: openSync(join(logDirectory, 'webhook-worker.log'), 'a') }) };
children.push(worker.child);
const apiPort = await freePort();
const api = startService(
  'api',
  'services/api/dist/main.js',
  { PORT: String(apiPort), METRICS_PORT: String(await freePort()), API_PROCESSES: apiProcesses },
  process.env.BENCH_API_NODE_OPTIONS,
);
const apiUrl = `http://127.0.0.1:${apiPort}`;
await waitUntilReady(`${apiUrl}/health/ready`);

const { created, secretKey, dashboard, token } = await proTeamWithApp(apiUrl, bench.suffix);
await dashboard('PATCH', `/apps/${created.app.id}/api-key`, token, { grant: ['suggestions:write'] });
const authorization = `Bearer ${secretKey}`;
const body = JSON.stringify({ title: 'Benchmark suggestion', body: 'What the benchmark asks for.', author: { external_id: 'bench-user', name: 'Bench' } });
for (let n = 0; n < 30; n += 1) {
  const response = await fetch(`${apiUrl}/api/v1/suggestions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body });
  if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
}

const scenarios = {
  bare: { name: 'GET /health/live (the ceiling)', method: 'GET', path: '/health/live', headers: {} },
  list: { name: 'GET /api/v1/suggestions?limit=25', method: 'GET', path: '/api/v1/suggestions?limit=25', headers: { authorization } },
  create: { name: 'POST /api/v1/suggestions', method: 'POST', path: '/api/v1/suggestions', headers: { authorization, 'content-type': 'application/json' }, body },
};

/** The api's processes: the one started, and its children when it runs several. */
function apiPids() {
  const pids = [api.child.pid];
  try {
    for (const line of readFileSync(`/proc/${api.child.pid}/task/${api.child.pid}/children`, 'utf8').trim().split(/\s+/)) if (line) pids.push(Number(line));
  } catch {
    // not Linux: no CPU figures
  }
  return pids;
}
function cpuMs(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return NaN;
    }
  }
  return ticks * 10;
}

/** Per scenario, the CPU of each process group per request in its last run. */
const lastMachine = {};

async function load(scenario, durationSeconds) {
  const args = ['-c', String(connections), '-d', String(durationSeconds), '-m', scenario.method, '-j'];
  if (scenario.body) args.push('-b', scenario.body);
  for (const [name, value] of Object.entries(scenario.headers)) args.push('-H', `${name}=${value}`);
  const pids = apiPids();
  const cpuBefore = cpuMs(pids);
  const child = spawn(`${root}node_modules/.bin/autocannon`, [...args, `${apiUrl}${scenario.path}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Where the machine's CPU went meanwhile, by process: the load generator's included.
  const groups = { api: pids, worker: [worker.child.pid], 'authority and bench': [process.pid], autocannon: [child.pid] };
  const machineBefore = cpuSnapshot(groups);
  // Taken while autocannon still runs: its time is gone from /proc once it has exited.
  let machineAfter = machineBefore;
  const sampler = setInterval(() => (machineAfter = cpuSnapshot(groups)), 250);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  await once(child, 'close');
  clearInterval(sampler);
  const cpu = cpuMs(pids) - cpuBefore;
  const result = JSON.parse(output);
  lastMachine[scenario.name] = cpuPerUnit(machineBefore, machineAfter, result.requests.total);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name}: non-2xx answers: ${JSON.stringify(result.statusCodeStats)}, errors: ${result.errors}`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuPerRequest: cpu / result.requests.total };
}

for (const name of order) await load(scenarios[name], warmUpSeconds); // caches, pools, JIT
const results = Object.fromEntries(order.map((name) => [name, []]));
const probes = [];
for (let round = 0; round < rounds; round += 1) {
  probes.push(machineSpeedProbe());
  for (const name of order) results[name].push(await load(scenarios[name], seconds));
}

const mean = (runs, field) => runs.reduce((sum, run) => sum + run[field], 0) / runs.length;
console.log(`\none api ${apiProcesses === '1' ? 'process' : `instance of ${apiProcesses} processes`}, ${connections} connections, ${seconds} s x ${rounds} rounds, interleaved; machine speed probe ${probes.join(', ')} ms`);
console.table(
  Object.fromEntries(
    order.map((name) => [
      scenarios[name].name,
      {
        'req/s': Math.round(mean(results[name], 'rps')),
        'p50 ms': mean(results[name], 'p50'),
        'p99 ms': mean(results[name], 'p99'),
        'api CPU ms/request': Number(mean(results[name], 'cpuPerRequest').toFixed(3)),
      },
    ]),
  ),
);
const targets = { list: 0.35, create: 0.25 };
for (const name of order.filter((name) => name in targets && results.bare)) {
  const ratio = mean(results[name], 'rps') / mean(results.bare, 'rps');
  const p99 = Math.max(...results[name].map((run) => run.p99));
  const met = ratio >= targets[name] && p99 < 50;
  console.log(`${scenarios[name].name}: ${(ratio * 100).toFixed(1)}% of the bare route (target >= ${targets[name] * 100}%), worst p99 ${p99} ms (target < 50): ${met ? 'met' : 'NOT met'}`);
}
console.log('CPU ms per request by process, last round ("other": whatever else the machine ran meanwhile):');
for (const [name, figures] of Object.entries(lastMachine)) console.log(`  ${name}: ${figures}`);
const lines = readFileSync(api.log, 'utf8').split('\n').length - 1;
console.log(`api log lines written at info: ${lines} (${api.log})`);

for (const child of children) child.kill('SIGTERM');
await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
await authority.stop();
await bench.drop();
