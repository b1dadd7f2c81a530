import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from '@jest/globals';

const root = new URL('../../../', import.meta.url);

/** Runs a benchmark script from the built services, as a reader would; resolves with its exit code and output. */
async function runBenchmark(script: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...nodeFlags, new URL(`bench/${script}`, root).pathname], {
    cwd: root.pathname,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

// The benchmarks are how the speed targets are shown; these runs, far too short to measure
// anything, only keep them working as the code under them changes. No figure is checked.
describe('benchmark scripts', () => {
  it('webhook-throughput runs through its phases and prints its figures', async () => {
    const { code, output } = await runBenchmark('webhook-throughput.mjs', {
      BENCH_EVENTS: '100',
      BENCH_WARMUP_EVENTS: '100',
      BENCH_ENDPOINTS: '1',
      BENCH_WORKERS: '1',
      BENCH_RATE: '100',
      BENCH_RATE_SECONDS: '1',
      BENCH_WARMUP_RATE_SECONDS: '0',
      BENCH_LOOP_SECONDS: '1',
    });
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/1 worker: 100 of 100 deliveries in .* deliveries\/s/);
    expect(output).toMatch(/event-to-delivery latency p50 \d+ ms, p95 \d+ ms, p99 \d+ ms \(100 of 100 delivered/);
    expect(output).toContain('attempts recorded:');
    expect(output).toMatch(/slowest 1% arrived at \(s into the phase\): \d/);
    expect(output).toMatch(/of the bare HTTPS loop around it, \d+ requests\/s: \d+ before, \d+ after/);
    expect(output).toMatch(/first, 1%, 5%, half and 95% by \(s\): claimed by the relay [\d.]/);
    expect(output).toMatch(/the loop's sender: [\d.]+ and [\d.]+ ms of CPU per request/);
    expect(output).toMatch(/the machine during the burst: (busy \d+% of the cores' time, \d+% stolen by the hypervisor|n\/a \(no \/proc\))/);
  }, 120_000);

  it('statement-cost prints what the fan-out and the record cost PostgreSQL per delivery, by events a statement', async () => {
    const { code, output } = await runBenchmark('statement-cost.mjs', { BENCH_BATCHES: '1,6', BENCH_HISTORY_EVENTS: '20', BENCH_MEASURED_EVENTS: '12' });
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output.match(/events a statement: fan-out ([\d.]+|n\/a) ms, record ([\d.]+|n\/a) ms, both ([\d.]+|n\/a) ms/g)).toHaveLength(2);
  }, 120_000);

  it('connection-cost prints the CPU of a request on a kept-alive and on a new connection', async () => {
    const { code, output } = await runBenchmark('connection-cost.mjs', {});
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/new connection for each request: sender [\d.]+ ms, receiver [\d.]+ ms of CPU per request/);
  }, 120_000);

  it('broker-latency prints how long a quorum queue takes from publish to consumer', async () => {
    const { code, output } = await runBenchmark('broker-latency.mjs', { BENCH_SECONDS: '1' });
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/quorum queue, 500 messages\/s for 1 s \(500 of 500 delivered\)/);
    expect(output).toMatch(/publish to consumer: p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms/);
  }, 120_000);

  it('throttle-churn prints what the backlog of a struggling endpoint costs, down and slow, with the production ladder', async () => {
    // The cases with a single wait differ only in a setting: running them too would double the run.
    const { code, output } = await runBenchmark('throttle-churn.mjs', { BENCH_BACKLOG: '20', BENCH_SETTLE_SECONDS: '1', BENCH_MEASURE_SECONDS: '1', BENCH_SINGLE_WAIT: '0' });
    expect({ code, output }).toMatchObject({ code: 0 });
    const cases = output.match(/(down|slow) endpoint, throttle waits [\d,]+ ms: \d+ attempts throttled a second \(\d+ deliveries, \d+ requests received\); CPU ms a second: worker \d+/g);
    expect(cases?.map((line) => line.split(':')[0])).toEqual(['down endpoint, throttle waits 1000,5000,30000 ms', 'slow endpoint, throttle waits 1000,5000,30000 ms']);
  }, 180_000);

  it('relay-memory prints the api process\'s heap after full collections between rounds of events', async () => {
    const { code, output } = await runBenchmark('relay-memory.mjs', { BENCH_ROUNDS: '1', BENCH_ROUND_SECONDS: '1' }, ['--expose-gc']);
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/after 1 s more at 500 events\/s \(500 events\): [\d.]+ MB/);
    expect(output).toContain('events written 1000, still waiting to be relayed 0');
  }, 120_000);

  it('abuse prints the tenant\'s answers with and without the flood, and the healthy team\'s deliveries with and without the crowd', async () => {
    const { code, output } = await runBenchmark('abuse.mjs', {
      BENCH_SECONDS: '1',
      BENCH_FLOOD_CLIENTS: '2',
      BENCH_TENANT_RATE: '10',
      BENCH_DELIVERY_SECONDS: '1',
      BENCH_SLOW_ENDPOINTS: '3',
      BENCH_HEALTHY_RATE: '5',
    });
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toMatch(/with flood: p50 [\d.]+ ms, p99 [\d.]+ ms, \d+ answers 503 of \d+/);
    expect(output).toMatch(/flood sign-ups and sign-ins: \d+ requests\/s/);
    expect(output).toMatch(/beside the crowd: p50 [\d.]+ ms, p99 [\d.]+ ms/);
    expect(output).toMatch(/CPU a second while the events were written \(ms\): alone .*total [\d.]+ ms; beside the crowd .*total [\d.]+ ms/);
  }, 240_000);

  it('auth-overhead compares both ways in and prints the ratio', async () => {
    const { code, output } = await runBenchmark('auth-overhead.mjs', { BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '4' });
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output.match(/authenticated \/ unauthenticated throughput: [\d.]+%/g)).toHaveLength(2);
    // A worker is bound to domain.events: every event the POSTs wrote was relayed.
    expect(output).toMatch(/events written \d+, still waiting to be relayed 0/);
  }, 120_000);

  it('api-throughput prints each route as a share of the bare route, with the api as one process and as two', async () => {
    for (const processes of ['1', '2']) {
      const { code, output } = await runBenchmark('api-throughput.mjs', {
        BENCH_SECONDS: '1',
        BENCH_WARMUP_SECONDS: '1',
        BENCH_ROUNDS: '1',
        BENCH_CONNECTIONS: '4',
        BENCH_API_PROCESSES: processes,
      });
      expect({ code, output }).toMatchObject({ code: 0 });
      expect(output).toMatch(/GET \/api\/v1\/suggestions\?limit=25: [\d.]+% of the bare route \(target >= 35%\), worst p99 [\d.]+ ms/);
      expect(output).toMatch(/POST \/api\/v1\/suggestions: [\d.]+% of the bare route \(target >= 25%\), worst p99 [\d.]+ ms/);
      expect(output).toMatch(/api log lines written at info: [1-9]\d*/);
    }
  }, 240_000);
});
