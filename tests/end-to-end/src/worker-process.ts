import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../../../services/webhook-worker/dist/main.js', import.meta.url));

/** A webhook worker as its own process (from the build), for tests that kill one. */
export function spawnWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [entry], {
    env: { PATH: process.env['PATH'] ?? '', ...env, HEALTH_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
