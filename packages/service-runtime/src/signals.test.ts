import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from '@jest/globals';

const lifecycleModule = new URL('../dist/lifecycle.js', import.meta.url).href;
const runServiceModule = new URL('../dist/run-service.js', import.meta.url).href;

/**
 * A process with one shutdown step that takes `stepMs`; resolves with its exit code and output
 * once it has been sent SIGINT at each of `signalsAtMs` (the first after it is ready, the others after it has taken the first).
 */
async function signalled(stepMs: number, signalsAtMs: number[]): Promise<{ code: number | null; output: string }> {
  const script = `
    import { Lifecycle } from ${JSON.stringify(lifecycleModule)};
    const quiet = { info() {}, warn() {}, error() {} };
    new Lifecycle(quiet).exitOnSignals(() => [
      { name: 'finish work in flight', run: () => { process.stdout.write('stopping\\n'); return new Promise((done) => setTimeout(() => { process.stdout.write('finished\\n'); done(); }, ${stepMs})); } },
    ], 10000);
    setInterval(() => {}, 1000);
    process.stdout.write('ready\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  while (!output.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 20));
  const [first, ...later] = signalsAtMs;
  await new Promise((resolve) => setTimeout(resolve, first));
  child.kill('SIGINT');
  // Later signals are timed from when the child has taken the first (it prints 'stopping'), not
  // from when it was sent: on a loaded machine the child may take it late, and the gap it sees
  // between the two would be shorter than the test meant.
  while (!output.includes('stopping')) await new Promise((resolve) => setTimeout(resolve, 5));
  const started = Date.now();
  for (const at of later) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + at - Date.now())));
    child.kill('SIGINT');
  }
  const [code] = await exited;
  return { code, output };
}

describe('Lifecycle.exitOnSignals', () => {
  it('finishes shutdown when the same signal arrives twice at once (Ctrl-C forwarded by a supervisor)', async () => {
    const { code, output } = await signalled(500, [0, 30]);
    expect(output).toContain('finished');
    expect(code).toBe(0);
  });

  it('exits at once on a second signal sent later, without finishing', async () => {
    const { code, output } = await signalled(5000, [0, 1300]);
    expect(output).not.toContain('finished');
    expect(code).toBe(1);
  });
});

describe('runService', () => {
  it('ends the process at once on a signal during start-up, when there is nothing to finish yet', async () => {
    const script = `
      import { runService } from ${JSON.stringify(runServiceModule)};
      await runService({
        name: 'starting',
        readConfig: () => ({ config: { logLevel: 'error' }, describe: () => ({}) }),
        start: () => { process.stdout.write('starting\\n'); return new Promise(() => setInterval(() => {}, 1000)); },
      });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    while (!output.includes('starting')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    // Exited by its own handler (status 1), not killed by the signal's default action.
    expect({ code, signal }).toEqual({ code: 1, signal: null });
  });
});
