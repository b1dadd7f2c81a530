import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// Runs the built entry points (the test command builds before jest runs).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const EXIT_CONFIG = 78;

function start(service: string, env: Record<string, string>) {
  const entry = `${root}services/${service}/dist/main.js`;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run "pnpm build" first`);
  return spawnSync(process.execPath, [entry], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
}

describe('start-up configuration', () => {
  it.each(['api', 'authority', 'webhook-worker'])('%s stops with a message naming every missing variable', (service) => {
    const result = start(service, {});
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr).toMatch(/DATABASE_URL is required/);
    expect(result.stderr).toMatch(/AMQP_URL is required/);
  });

  it('names a malformed variable and says what it expects', () => {
    const result = start('api', {
      DATABASE_URL: 'mysql://127.0.0.1/feedback',
      AMQP_URL: 'amqp://127.0.0.1',
      PORT: 'eighty',
    });
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr).toMatch(/DATABASE_URL must use postgresql or postgres/);
    expect(result.stderr).toMatch(/PORT must be a whole number/);
  });

  it('never prints a password from a URL it could not use', () => {
    const result = start('authority', { DATABASE_URL: 'postgresql://u:hunter2@127.0.0.1/x', AMQP_URL: 'http://guest:hunter3@h' });
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr + result.stdout).not.toMatch(/hunter/);
  });
});
