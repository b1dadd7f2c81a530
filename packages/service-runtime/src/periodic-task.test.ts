import { describe, expect, it } from '@jest/globals';
import type { Logger } from '@feedback/logging';
import { PeriodicTask, retentionPruning } from './periodic-task.js';

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PeriodicTask', () => {
  it('runs again after a failure, never two runs at once, and stop waits for the run in progress', async () => {
    const { lines, logger } = recordingLogger();
    let runs = 0;
    let running = 0;
    let mostAtOnce = 0;
    let finished = 0;
    const task = new PeriodicTask({
      name: 'test task',
      intervalMs: 5,
      logger,
      run: async () => {
        runs += 1;
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await sleep(20);
        running -= 1;
        finished += 1;
        if (runs === 1) throw new Error('database away');
      },
    });
    task.start();
    while (runs < 3) await sleep(5);
    await task.stop();
    expect(finished).toBe(runs);
    expect(mostAtOnce).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'test task failed; tried again at the next interval' }));
    const after = runs;
    await sleep(50);
    expect(runs).toBe(after);
  });

  it('runs first after firstRunAfterMs when given, then every intervalMs', async () => {
    const { logger } = recordingLogger();
    let runs = 0;
    const task = new PeriodicTask({ name: 'soon', firstRunAfterMs: 0, intervalMs: 60_000, logger, run: async () => void (runs += 1) });
    task.start();
    while (runs < 1) await sleep(5);
    await sleep(50);
    await task.stop();
    expect(runs).toBe(1);
  });

  it('tells a run in progress that the service is stopping, and waits for it to end', async () => {
    const { logger } = recordingLogger();
    let started = false;
    let ended = false;
    const task = new PeriodicTask({
      name: 'long task',
      intervalMs: 1,
      logger,
      run: async (signal) => {
        started = true;
        while (!signal.aborted) await sleep(5);
        ended = true;
      },
    });
    task.start();
    while (!started) await sleep(2);
    await task.stop();
    expect(ended).toBe(true);
  });
});

describe('retentionPruning', () => {
  it('runs every prune even when one fails, and logs what each deleted', async () => {
    const { lines, logger } = recordingLogger();
    const ran: string[] = [];
    const task = retentionPruning(
      logger,
      [
        { what: 'old a', prune: async () => (ran.push('a'), Promise.reject(new Error('a failed'))) },
        { what: 'old b', prune: async () => (ran.push('b'), 3) },
        { what: 'old c', prune: async () => (ran.push('c'), 0) },
      ],
      5,
    );
    task.start();
    while (!ran.includes('c')) await sleep(5);
    await task.stop();
    expect(ran.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'deleting old a failed; tried again at the next interval' }));
    expect(lines).toContainEqual({ level: 'info', message: 'old b deleted', meta: { deleted: 3 } });
    expect(lines.some((line) => line.message.startsWith('old c'))).toBe(false);
  });
});
