import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import { createApp, grantScopes, signUpTeam } from './dashboard.js';
import { healthUrl, startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let secretKey: string;
let appId: number;
let ownerToken: string;

beforeAll(async () => {
  system = await startSystem();
  const owner = await signUpTeam(system.api.url, 'pro');
  ownerToken = owner.token;
  const created = await createApp(system.api.url, owner.token);
  secretKey = created.secretKey;
  appId = created.appId;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

const suggestion = { title: 'Dark mode', body: 'Please', author: { external_id: 'user-42', name: 'Ada' } };

function post(path: string, body: unknown, key?: string) {
  return fetch(`${system.api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe('walking skeleton: api, authority and worker over the real broker and database', () => {
  it('answers ready on every service once broker and database are connected', async () => {
    for (const url of [system.api.url, healthUrl(system.authority), healthUrl(system.worker)]) {
      const response = await eventually(async () => {
        const answer = await fetch(`${url}/health/ready`);
        return answer.status === 200 ? answer : undefined;
      }, { what: `${url} ready` });
      expect(await response.json()).toEqual({ status: 'ready', checks: { broker: 'up', database: 'up' } });
    }
  });

  it('serves the OpenAPI document publicly, without a key', async () => {
    const response = await fetch(`${system.api.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ openapi: '3.1.0' });
  });

  it('refuses a request without a key, with a stable code and a WWW-Authenticate challenge', async () => {
    const response = await post('/api/v1/suggestions', suggestion);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ error: 'missing_api_key' });
  });

  it('refuses a key whose checksum is wrong without asking the authority', async () => {
    const tampered = secretKey.slice(0, -1) + (secretKey.endsWith('a') ? 'b' : 'a');
    const response = await post('/api/v1/suggestions', suggestion, tampered);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_api_key' });
  });

  it("checks the key at the authority over RPC: a new app's read-only key gets 403 insufficient_scope", async () => {
    const response = await post('/api/v1/suggestions', suggestion, secretKey);
    expect(response.status).toBe(403);
    const body = await response.json();
    expect(body).toEqual({
      error: 'insufficient_scope',
      message: expect.any(String),
      required_scope: 'suggestions:write',
      granted_scopes: ['suggestions:read', 'tickets:read'],
      manage_scopes_url: expect.stringMatching(/^http/),
      docs_url: expect.stringMatching(/^http/),
    });
    expect(JSON.stringify(body)).not.toContain(secretKey);
  });

  it('writes the event to the outbox with the change, and the worker receives it through the broker', async () => {
    expect((await grantScopes(system.api.url, ownerToken, appId, ['suggestions:write'])).status).toBe(200);
    const response = await post('/api/v1/suggestions', suggestion, secretKey);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const created = (await response.json()) as { id: number };

    const outboxed = await system.api.prisma.outboxEvent.findFirstOrThrow({ where: { eventType: 'suggestion.created' } });
    expect(outboxed.payload).toMatchObject({
      event: 'suggestion.created',
      app: { id: appId },
      data: {
        suggestion: { id: created.id, title: 'Dark mode' },
        author: { external_id: 'user-42', name: 'Ada' },
        sender: { type: 'app_user', external_id: 'user-42', name: 'Ada' },
      },
    });
    const received = await eventually(
      () => system.worker.prisma.receivedEvent.findUnique({ where: { eventId: outboxed.eventId } }).then((row) => row ?? undefined),
      { what: 'the worker to receive the event' },
    );
    expect(received).toMatchObject({ eventType: 'suggestion.created', appId });
    // Stamped published once the broker confirmed it, which may be just after the worker has it.
    await eventually(
      () => system.api.prisma.outboxEvent.findUniqueOrThrow({ where: { eventId: outboxed.eventId } }).then((row) => row.publishedAt ?? undefined),
      { what: 'the relay to stamp the event published' },
    );
  });

  it('never writes the secret key or its hash to a log line', async () => {
    const { hashSecretKey } = await import('@feedback/keys');
    const logs = system.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(secretKey);
    expect(logs).not.toContain(hashSecretKey(secretKey));
  });
});
