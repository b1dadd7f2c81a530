import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireCurrentBuild } from './current-build.js';

const entry = fileURLToPath(new URL('../../../services/webhook-worker/dist/main.js', import.meta.url));

/**
 * A webhook worker as its own process (from the build), for tests that kill or stop one. Its
 * health routes are on `healthPort`, for a test that watches it; otherwise on a port of its own.
 */
export function spawnWorker(env: Record<string, string>, { healthPort = 0 }: { healthPort?: number } = {}): ChildProcess {
  requireCurrentBuild();
  return spawn(process.execPath, [entry], {
    env: { PATH: process.env['PATH'] ?? '', ...env, HEALTH_PORT: String(healthPort), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
