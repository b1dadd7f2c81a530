// Abuse resistance on this machine, in two parts, each a run without the abuse and a run with it.
//
//   pnpm build && node bench/abuse.mjs
//   BENCH_PART=api node bench/abuse.mjs          (only the flood of sign-ups, sign-ins and the widget)
//   BENCH_PART=delivery node bench/abuse.mjs     (only the team with 500 endpoints at a slow receiver)
//   BENCH_SECONDS=30 BENCH_FLOOD_CLIENTS=64 BENCH_FLOOD_ADDRESSES=one|many BENCH_TENANT_RATE=50
//   BENCH_API_LAYOUT=split|one   (split: the integrations' api instance apart from the widget's and
//                                 the dashboard's, SURFACES; one: a single instance serves all three)
//   BENCH_DELIVERY_SECONDS=20 BENCH_SLOW_ENDPOINTS=500 BENCH_HEALTHY_RATE=50 BENCH_SLOW_EVENT_RATE=1
//   BENCH_STAGES_EACH=1                          (each of the slowest 1%'s stages, not only their mean)
//   BENCH_WORKER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/worker-prof"   (then bench/profile-top.mjs)
//
// api: a well-behaved tenant calls GET /api/v1/suggestions at a steady rate, alone, then while
// one client floods sign-ups and sign-ins as fast as it can and another floods the widget with
// random and real public keys, each from one address. With BENCH_FLOOD_ADDRESSES=many each
// request comes from a fresh IPv6 /64, so no per-address limit stops them: the bounded password
// hashing and the authority's own queue for key checks must. It prints the tenant's 503s and
// p99, both runs, and the CPU each process spent per tenant request.
//
// delivery: a team with one healthy endpoint gets events at a steady rate, alone, then while a
// second team with 500 endpoints at one receiver answering in a second gets an event a second
// (500 deliveries a second asked of that host). It prints the healthy team's event-to-delivery p99,
// where its slowest 1% spent their time, and the worker's event-loop delay.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import pg from 'pg';
import { benchEnvironment, localReceiverWorkerEnv, machineSpeedProbe, proTeamWithApp, quiet, root, startWorkerProcess, suggestionCreatedEvent, writeOutboxEvents } from './bench-support.mjs';
import { percentile } from './percentile.mjs';
import { cpuPerUnit, cpuSnapshot } from './process-cpu.mjs';


/** A flood client, in a process of its own: as many requests as it can, from `FLOOD_CLIENTS` loops, until its time is up. */
async function flood() {
  const { generatePublicKey } = await import(`${root}packages/keys/dist/index.js`);
  const { url, seconds, clients, addresses, kind, publicKeys, emails } = JSON.parse(process.env.FLOOD);
  const random16 = () => Math.floor(Math.random() * 0x10000).toString(16);
  const address = () => (addresses === 'one' ? '198.51.100.77' : `2001:db8:${random16()}:${random16()}::1`);
  const end = Date.now() + seconds * 1000;
  const byStatus = {};
  let sent = 0;
  const requests = {
    auth: (n) =>
      n % 2 === 0
        ? ['/dashboard/v1/sign-up', { team_name: 'Flood', name: 'Flood', email: `flood-${process.pid}-${n}-${random16()}@example.com`, password: 'a long enough password' }]
        : ['/dashboard/v1/sign-in', { email: n % 4 === 1 ? emails[n % emails.length] : `nobody-${random16()}@example.com`, password: 'a wrong password!' }],
    widget: (n) => ['/widget/v1/suggestions', { title: 'Flood', user: { external_id: `u${n}` } }, n % 2 === 0 ? generatePublicKey() : publicKeys[n % publicKeys.length]],
  };
  let n = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const [path, body, key] = requests[kind]((n += 1));
        try {
          const response = await fetch(`${url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address(), ...(key ? { authorization: `Bearer ${key}` } : {}) },
            body: JSON.stringify(body),
          });
          await response.arrayBuffer();
          byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
        } catch {
          byStatus.error = (byStatus.error ?? 0) + 1;
        }
        sent += 1;
      }
    }),
  );
  process.send({ sent, seconds, byStatus });
}

/** A receiver that answers every request 204 after a second, in a process of its own; it reports how many it took and the most at once. */
async function slowReceiver() {
  const { tls, delayMs } = JSON.parse(process.env.SLOW_RECEIVER);
  let received = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createHttpsServer(tls, (request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(204).end();
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', (question) => {
    if (question === 'report') process.send({ received, mostInFlight });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ port: server.address().port });
}

async function freePort() {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntilReady(url) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not become ready`);
}

const children = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
for (const event of ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection']) process.prependListener(event, () => children.forEach((child) => child.kill('SIGKILL')));

/** Starts a service from its build, in a process of its own. */
function service(name, env) {
  // BENCH_SERVICE_LOG=<file> keeps the services' log lines there.
  const log = process.env.BENCH_SERVICE_LOG ? openSync(process.env.BENCH_SERVICE_LOG, 'a') : 'ignore';
  // BENCH_WORKER_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles", profiles the worker.
  const nodeOptions = name === 'webhook-worker' ? (process.env.BENCH_WORKER_NODE_OPTIONS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...nodeOptions, `${root}services/${name}/dist/main.js`], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', log, 'inherit'] });
  children.push(child);
  return child;
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const ms = (value) => `${value.toFixed(1)} ms`;

/**
 * Sets the priority of every thread of a process. On Linux a priority is a thread's: set on the
 * process id alone, it would leave the threads already started (V8's, libuv's) where they were.
 * Threads started later take their creator's.
 */
function prioritise(pid, priority) {
  let threads = [pid];
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    // Not Linux: the process's priority is all there is.
  }
  for (const thread of threads) {
    try {
      setPriority(thread, priority);
    } catch {
      // A thread that ended meanwhile.
    }
  }
}

async function main() {
  const part = process.env.BENCH_PART ?? 'both';
  const bench = await benchEnvironment();
  const results = [];
  try {
    console.log(`machine speed probe ${machineSpeedProbe()} ms (lower is faster); the machine may be shared with other work`);
    if (part === 'both' || part === 'api') results.push(await apiFlood(bench));
    if (part === 'both' || part === 'delivery') results.push(await slowTenant(bench));
  } finally {
    children.forEach((child) => child.kill('SIGKILL'));
    await bench.drop();
  }
  console.log(`\n${results.join('\n')}`);
  process.exit(0);
}

/** The api part: a tenant's calls alone, then under a flood of sign-ups, sign-ins and widget requests. */
async function apiFlood(bench) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 30);
  const clients = Number(process.env.BENCH_FLOOD_CLIENTS ?? 64);
  const addresses = process.env.BENCH_FLOOD_ADDRESSES ?? 'one';
  const layout = process.env.BENCH_API_LAYOUT ?? 'split';
  const tenantRate = Number(process.env.BENCH_TENANT_RATE ?? 50);
  // The production limits, not the benchmarks' raised ones: this is what is measured.
  const env = { ...bench.env, SIGN_UP_LIMIT: '10', SIGN_IN_ADDRESS_LIMIT: '20', SIGN_IN_ACCOUNT_LIMIT: '10', WIDGET_ADDRESS_LIMIT: '120', WIDGET_KEY_LIMIT: '600', LOG_LEVEL: process.env.BENCH_SERVICE_LOG_LEVEL ?? 'error' };
  const ports = { api: await freePort(), metrics: await freePort(), authority: await freePort(), public: await freePort(), publicMetrics: await freePort() };
  const authority = service('authority', { ...env, HEALTH_PORT: String(ports.authority) });
  // A worker bound to the events, as in production. Without one the broker refuses the events the
  // widget's creates write, and each api's relay retries them about every second.
  const worker = await startWorkerProcess(env);
  children.push(worker);
  const apis = [service('api', { ...env, PORT: String(ports.api), METRICS_PORT: String(ports.metrics), ...(layout === 'split' ? { SURFACES: 'api' } : {}) })];
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  // Split: the widget and the dashboard on an instance of their own, as a second fleet would be.
  if (layout === 'split') apis.push(service('api', { ...env, PORT: String(ports.public), METRICS_PORT: String(ports.publicMetrics), SURFACES: 'widget,dashboard' }));
  // Separate fleets, and the customer's client, have cores of their own. On this one machine
  // priorities stand for that: the integrations' instance and the tenant's client above the
  // shared services (authority, PostgreSQL, RabbitMQ), the public instance below them, the
  // attacker lowest. BENCH_PRIORITIES=0 runs everything at one priority.
  const priorities = process.env.BENCH_PRIORITIES !== '0';
  const publicUrl = layout === 'split' ? `http://127.0.0.1:${ports.public}` : apiUrl;
  await Promise.all([waitUntilReady(`http://127.0.0.1:${ports.authority}/health/ready`), waitUntilReady(`${apiUrl}/health/ready`), waitUntilReady(`${publicUrl}/health/ready`)]);
  // Once ready, so that each process's threads have started.
  if (priorities && layout === 'split') {
    prioritise(apis[0].pid, -5);
    prioritise(apis[1].pid, 5);
    prioritise(process.pid, -5);
  }

  const tenant = await proTeamWithApp(publicUrl, `${bench.suffix}-tenant`);
  const target = await proTeamWithApp(publicUrl, `${bench.suffix}-target`);
  const publicKeys = [tenant.created.app.public_key, target.created.app.public_key];
  const emails = [`bench-${bench.suffix}-tenant@example.com`, `bench-${bench.suffix}-target@example.com`];

  /** The tenant's calls at a steady rate for `forSeconds`: each answer's status and time. */
  async function tenantCalls(forSeconds, floods = []) {
    const groups = () => ({
      'tenant api': [apis[0].pid],
      ...(layout === 'split' ? { 'public api': [apis[1].pid] } : {}),
      authority: [authority.pid],
      worker: [worker.pid],
      flood: floods.map((child) => child.pid),
      'tenant client': [process.pid],
    });
    const cpuBefore = cpuSnapshot(groups());
    const latencies = [];
    const statuses = {};
    const calls = [];
    const started = performance.now();
    for (let n = 0; performance.now() - started < forSeconds * 1000; n += 1) {
      const due = started + (n * 1000) / tenantRate;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      calls.push(
        (async () => {
          const sent = performance.now();
          try {
            const response = await fetch(`${apiUrl}/api/v1/suggestions`, { headers: { authorization: `Bearer ${tenant.secretKey}` } });
            await response.arrayBuffer();
            statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          } catch {
            statuses.error = (statuses.error ?? 0) + 1;
          }
          latencies.push(performance.now() - sent);
        })(),
      );
    }
    await Promise.all(calls);
    return { ...stats(latencies), statuses, count: latencies.length, cpu: cpuPerUnit(cpuBefore, cpuSnapshot(groups()), latencies.length) };
  }

  await tenantCalls(3); // warm-up
  const alone = await tenantCalls(seconds);
  const floodFor = seconds + 4;
  const floods = (process.env.BENCH_FLOODS ?? 'auth,widget').split(',').map((kind) => {
    const child = fork(new URL(import.meta.url), ['flood'], {
      env: { ...process.env, FLOOD: JSON.stringify({ url: publicUrl, seconds: floodFor, clients, addresses, kind, publicKeys, emails }) },
    });
    children.push(child);
    // The attacker's own CPU is not the platform's: its clients run at the lowest priority.
    if (process.env.BENCH_PRIORITIES !== '0') prioritise(child.pid, 19);
    return { kind, child, report: once(child, 'message').then(([report]) => report) };
  });
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood under way
  // Again, now that the flood's threads have started.
  if (process.env.BENCH_PRIORITIES !== '0') floods.forEach(({ child }) => prioritise(child.pid, 19));
  const flooded = await tenantCalls(seconds, floods.map(({ child }) => child));
  const reports = await Promise.all(floods.map(async ({ kind, report }) => ({ kind, ...(await report) })));
  const describe = (run) => `p50 ${ms(run.p50)}, p99 ${ms(run.p99)}, ${run.statuses[503] ?? 0} answers 503 of ${run.count} (${JSON.stringify(run.statuses)})`;
  const lines = [
    `api (${layout === 'split' ? "the integrations' instance apart from the widget's and dashboard's" : 'one instance serves every surface'}): a tenant's GET /api/v1/suggestions at ${tenantRate}/s for ${seconds} s; ${clients} flood clients each, from ${addresses === 'one' ? 'one address' : 'a new IPv6 /64 each request'}`,
    `  alone:      ${describe(alone)}`,
    `  with flood: ${describe(flooded)}`,
    `  CPU per tenant request with flood (ms): ${flooded.cpu}`,
    `  p99 with flood / alone: ${(flooded.p99 / alone.p99).toFixed(2)}`,
    ...reports.map((report) => `  flood ${report.kind === 'auth' ? 'sign-ups and sign-ins' : 'widget, random and real public keys'}: ${Math.round(report.sent / report.seconds)} requests/s (${JSON.stringify(report.byStatus)})`),
  ];
  lines.forEach((line) => console.log(line));
  children.splice(0).forEach((child) => child.kill('SIGTERM'));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return lines.join('\n');
}

/** The delivery part: a healthy team's event-to-delivery latency alone, then beside a team with 500 endpoints at a slow receiver. */
async function slowTenant(bench) {
  const { testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
  const { startAuthority, readAuthorityConfig } = await import(`${root}services/authority/dist/service.js`);
  const { startApi, readApiConfig } = await import(`${root}services/api/dist/service.js`);
  const seconds = Number(process.env.BENCH_DELIVERY_SECONDS ?? 20);
  const slowEndpoints = Number(process.env.BENCH_SLOW_ENDPOINTS ?? 500);
  // 50 a second gives the p99 a thousand samples in 20 s: at 20, its four slowest decided it.
  const healthyRate = Number(process.env.BENCH_HEALTHY_RATE ?? 50);
  const slowEventRate = Number(process.env.BENCH_SLOW_EVENT_RATE ?? 1);
  const certificates = testCertificates();
  const env = { ...bench.env, ...localReceiverWorkerEnv(certificates.caFile), LOG_LEVEL: 'error' };

  const fast = fork(new URL('./fast-receiver.mjs', import.meta.url), { env: { ...process.env, BENCH_RECEIVER_TLS: JSON.stringify({ tls: certificates.trusted }) } });
  const slow = fork(new URL(import.meta.url), ['slow-receiver'], { env: { ...process.env, SLOW_RECEIVER: JSON.stringify({ tls: certificates.trusted, delayMs: 1000 }) } });
  children.push(fast, slow);
  const ask = (child, question, key) =>
    new Promise((resolve) => {
      const listener = (answer) => {
        if (!(key in answer)) return;
        child.off('message', listener);
        resolve(answer);
      };
      child.on('message', listener);
      if (question) child.send(question);
    });
  const [{ port: fastPort }, { port: slowPort }] = await Promise.all([ask(fast, undefined, 'port'), ask(slow, undefined, 'port')]);

  const authority = await startAuthority(readAuthorityConfig(env).config, quiet('authority'));
  const api = await startApi(readApiConfig(env).config, quiet('api'));
  const workerHealthPort = await freePort();
  const worker = service('webhook-worker', { ...env, HEALTH_PORT: String(workerHealthPort) });
  /**
   * The worker's event-loop delay since the last look, from its metrics: a loop held by one
   * team's work delays every team's deliveries. prom-client starts its histogram again at each look.
   */
  async function workerLoopDelay() {
    const text = await (await fetch(`http://127.0.0.1:${workerHealthPort}/metrics`)).text();
    const read = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
    return `p99 ${read('nodejs_eventloop_lag_p99_seconds').toFixed(0)} ms, max ${read('nodejs_eventloop_lag_max_seconds').toFixed(0)} ms`;
  }

  const healthy = await proTeamWithApp(api.url, `${bench.suffix}-healthy`);
  const crowd = await proTeamWithApp(api.url, `${bench.suffix}-crowd`);
  const endpoint = async (team, name, url) => {
    for (let tries = 0; ; tries += 1) {
      const answer = await team.dashboard('POST', `/apps/${team.created.app.id}/webhooks`, team.token, { name, url, events: ['suggestion.created'] });
      if (answer.status === 201) return;
      if (tries > 50) throw new Error(`endpoint creation failed: ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await endpoint(healthy, 'Healthy', `https://localhost:${fastPort}/hooks`);
  for (let n = 0; n < slowEndpoints; n += 8) {
    await Promise.all(Array.from({ length: Math.min(8, slowEndpoints - n) }, (_, k) => endpoint(crowd, `Slow ${n + k}`, `https://localhost:${slowPort}/hooks/${n + k}`)));
  }

  const writer = new pg.Pool({ connectionString: bench.databaseUrl, max: 2 });
  const appOf = (team) => ({ id: team.created.app.id, public_key: team.created.app.public_key });
  async function write(team, count) {
    await writeOutboxEvents(writer, Array.from({ length: count }, () => suggestionCreatedEvent(appOf(team))));
    api.outboxRelay.wake();
  }
  /**
   * Events at `rate` a second for `forSeconds`, each written alone when due, as a team's events
   * come. Written a few at a time, a moment's stall delayed them all, and the p99 counted it as
   * many samples.
   */
  async function steady(team, rate, forSeconds) {
    const started = performance.now();
    const tickMs = Math.min(100, 1000 / rate);
    let written = 0;
    while (performance.now() - started < forSeconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate) - written;
      if (due > 0) {
        await write(team, due);
        written += due;
      }
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
    return written;
  }
  /** Where the slowest 1% of the healthy team's deliveries spent their time, averaged: relay, fan-out, to the attempt, the request. */
  async function stagesOf(ids) {
    const { rows } = await writer.query(
      `SELECT to_char(o.published_at, 'SS.MS') AS at,
              extract(epoch FROM o.published_at - (d.payload ->> 'created_at')::timestamptz) * 1000 AS relay,
              extract(epoch FROM d.created_at - o.published_at) * 1000 AS fan_out,
              extract(epoch FROM a.started_at - d.created_at) * 1000 AS to_attempt,
              a.duration_ms AS request
       FROM webhooks.deliveries d JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id AND a.number = 1
       JOIN api.outbox_events o ON o.event_id = d.event_id
       WHERE d.id = ANY($1::uuid[]) ORDER BY o.published_at`,
      [ids],
    );
    const stages = ['relay', 'fan_out', 'to_attempt', 'request'];
    if (process.env.BENCH_STAGES_EACH) {
      for (const row of rows) console.log(JSON.stringify({ at: row.at, ...Object.fromEntries(stages.map((stage) => [stage, Math.round(Number(row[stage]))])) }));
    }
    const mean = (stage) => `${Math.round(rows.reduce((sum, row) => sum + Number(row[stage]), 0) / Math.max(1, rows.length))} ms`;
    return `relay ${mean('relay')}, fan-out ${mean('fan_out')}, to attempt ${mean('to_attempt')}, request ${mean('request')}`;
  }

  async function healthyLatencies(withCrowd) {
    await ask(fast, 'reset', 'reset');
    const crowdRun = withCrowd ? steady(crowd, slowEventRate, seconds + 2) : Promise.resolve(0);
    if (withCrowd) await new Promise((resolve) => setTimeout(resolve, 2000)); // the crowd's backlog under way
    const groups = { worker: [worker.pid], 'api, authority and bench': [process.pid], receivers: [fast.pid, slow.pid] };
    const cpuBefore = cpuSnapshot(groups);
    await workerLoopDelay();
    const written = await steady(healthy, healthyRate, seconds);
    const cpu = cpuPerUnit(cpuBefore, cpuSnapshot(groups), seconds);
    const loopDelay = await workerLoopDelay();
    const deadline = Date.now() + 30_000;
    while ((await ask(fast, 'count', 'count')).count < written && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const { latencies, slowest } = await ask(fast, 'report', 'latencies');
    const crowdEvents = await crowdRun;
    return { ...stats(latencies), delivered: latencies.length, written, crowdEvents, cpu, loopDelay, tail: await stagesOf(slowest) };
  }

  await steady(healthy, healthyRate, 3); // warm-up
  const alone = await healthyLatencies(false);
  const beside = await healthyLatencies(true);
  const slowReport = await ask(slow, 'report', 'received');
  const describe = (run) => `p50 ${ms(run.p50)}, p99 ${ms(run.p99)} (${run.delivered} of ${run.written} delivered)`;
  const lines = [
    `delivery: a healthy team's event-to-delivery at ${healthyRate} events/s for ${seconds} s; the crowd: ${slowEndpoints} endpoints at one receiver answering in 1 s, ${slowEventRate} event/s`,
    `  alone:            ${describe(alone)}`,
    `  beside the crowd: ${describe(beside)}`,
    `  p99 beside the crowd / alone: ${(beside.p99 / alone.p99).toFixed(2)}`,
    // Every process on the machine, while the healthy team's events were written; not the drain after.
    `  CPU a second while the events were written (ms): alone ${alone.cpu}; beside the crowd ${beside.cpu}`,
    `  the slowest 1%, mean of each stage: alone ${alone.tail}; beside the crowd ${beside.tail}`,
    `  the worker's event-loop delay while the events were written: alone ${alone.loopDelay}; beside the crowd ${beside.loopDelay}`,
    `  the crowd: ${beside.crowdEvents} events (${beside.crowdEvents * slowEndpoints} deliveries asked); its receiver took ${slowReport.received}, at most ${slowReport.mostInFlight} at once`,
  ];
  lines.forEach((line) => console.log(line));
  // The worker stops as in production, so that a profile asked by BENCH_WORKER_NODE_OPTIONS is written.
  worker.kill('SIGTERM');
  await Promise.race([once(worker, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  children.splice(0).forEach((child) => child.kill('SIGKILL'));
  await writer.end();
  await api.stop();
  await authority.stop();
  return lines.join('\n');
}

const role = process.argv[2];
if (role === 'flood') await flood();
else if (role === 'slow-receiver') await slowReceiver();
else await main();
