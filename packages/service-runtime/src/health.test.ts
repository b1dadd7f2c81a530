import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { READINESS_CHECK_TIME_LIMIT_MS, healthRouter } from './health.js';
import type { ReadinessCheck } from './health.js';

let server: Server | undefined;

async function readiness(checks: Record<string, ReadinessCheck>, shuttingDown = false) {
  const app = express().use(healthRouter(checks, () => shuttingDown));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
  return { status: response.status, body: (await response.json()) as unknown };
}

afterEach(async () => {
  server?.close();
  server = undefined;
});

describe('readiness', () => {
  it('is ready when every check answers yes', async () => {
    const answer = await readiness({ broker: () => true, database: async () => true });
    expect(answer).toMatchObject({ status: 200, body: { status: 'ready', checks: { broker: 'up', database: 'up' } } });
  });

  it('is ready, and says so, while a dependency is away that the service can do without for now', async () => {
    const answer = await readiness({ broker: () => 'degraded', database: async () => true });
    expect(answer).toMatchObject({ status: 200, body: { status: 'ready', checks: { broker: 'degraded', database: 'up' } } });
  });

  it('names the check that failed, threw or said no', async () => {
    const answer = await readiness({ broker: () => false, database: async () => Promise.reject(new Error('gone')), other: () => true });
    expect(answer).toMatchObject({ status: 503, body: { status: 'not_ready', checks: { broker: 'down', database: 'down', other: 'up' } } });
  });

  it(`counts a check that has not answered within ${READINESS_CHECK_TIME_LIMIT_MS} ms as down, rather than hang`, async () => {
    const answer = await readiness({ broker: () => true, database: () => new Promise<boolean>(() => undefined) });
    expect(answer).toMatchObject({ status: 503, body: { checks: { broker: 'up', database: 'down' } } });
  });

  it('is not ready while shutting down, whatever the checks say', async () => {
    const answer = await readiness({ broker: () => true }, true);
    expect(answer).toMatchObject({ status: 503, body: { status: 'shutting_down' } });
  });
});
