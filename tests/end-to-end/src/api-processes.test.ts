import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, freePort } from '@feedback/test-support';
import { requireCurrentBuild } from './current-build.js';
import { call, createApp, grantScopes, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

const entry = fileURLToPath(new URL('../../../services/api/dist/main.js', import.meta.url));

let system: RunningSystem;
let api: ChildProcess;
let apiUrl: string;
let metricsUrl: string;

/** The processes the first one started (Linux). */
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

beforeAll(async () => {
  requireCurrentBuild();
  system = await startSystem();
  // Only these processes relay events here.
  await system.api.stop();
  const [port, metricsPort] = [await freePort(), await freePort()];
  api = spawn(process.execPath, [entry], {
    env: { PATH: process.env['PATH'] ?? '', ...system.env, AMQP_URL: system.amqpUrls.api, PORT: String(port), METRICS_PORT: String(metricsPort), API_PROCESSES: '2', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  apiUrl = `http://127.0.0.1:${port}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  await eventually(async () => ((await fetch(`${metricsUrl}/health/ready`).catch(() => undefined))?.status === 200 ? true : undefined), {
    what: 'both api processes to start',
    timeoutMs: 60_000,
  });
}, 90_000);

afterAll(async () => {
  if (api && api.exitCode === null) {
    api.kill('SIGKILL');
    await once(api, 'exit');
  }
  await system?.stop();
});

describe('the api as several processes (API_PROCESSES)', () => {
  it('serves one port from two processes, each an instance with its own relay, and their metrics summed on the metrics port', async () => {
    expect(childrenOf(api.pid!)).toHaveLength(2);
    const owner = await signUpTeam(apiUrl, 'pro');
    const app = await createApp(apiUrl, owner.token);
    await grantScopes(apiUrl, owner.token, app.appId, ['suggestions:write']);
    // Connections are handed to the processes in turn: each one creates some of these.
    for (let n = 0; n < 6; n += 1) {
      const created = await fetch(`${apiUrl}/api/v1/suggestions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.secretKey}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ title: `Suggestion ${n}`, author: { external_id: 'u-1' } }),
      });
      expect(created.status).toBe(201);
    }
    const listed = await call<{ data: unknown[] }>(apiUrl, 'GET', '/api/v1/suggestions', { key: app.secretKey });
    expect(listed.body.data).toHaveLength(6);

    const metrics = await eventually(async () => {
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      const published = /^feedback_outbox_events_published_total\{[^}]*\} (\d+)/m.exec(text);
      // Each process reads its dependencies up (a check slower than its limit reads down): the least of them is what the instance says.
      const databaseUp = /^feedback_dependency_up\{[^}]*dependency="database"[^}]*\} 1$/m.test(text);
      // The team's and the app's own events are relayed too: the backlog is empty only once all are.
      const drained = /^feedback_outbox_unpublished_events\{[^}]*\} 0$/m.test(text);
      return published && Number(published[1]) >= 6 && databaseUp && drained ? text : undefined;
    }, { what: 'every event relayed, as both processes count them, and the database up in both', timeoutMs: 20_000 });
    expect(metrics).toMatch(/^feedback_http_request_duration_seconds_count\{[^}]*route="\/suggestions"[^}]*method="POST"[^}]*status="201"[^}]*\} 6$/m);
    expect(metrics).toMatch(/^feedback_outbox_unpublished_events\{[^}]*\} 0$/m);
  }, 60_000);

  it('stops every process on SIGTERM, each finishing its own shutdown', async () => {
    const processes = childrenOf(api.pid!);
    api.kill('SIGTERM');
    const [code] = (await once(api, 'exit')) as [number | null];
    expect(code).toBe(0);
    for (const pid of processes) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
