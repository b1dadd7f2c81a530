import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AuthenticationError, FeedbackApiError, FeedbackClient, FeedbackConnectionError, InsufficientScopeError, RateLimitError } from './index.js';

const secretKey = 'sk_live_TestKeyForTheClientUnitTests000000000000';
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real HTTP server answering each request with the next of `answers` (the last repeats). */
async function api(answers: Array<(response: ServerResponse, seen: Seen) => void>) {
  const seen: Seen[] = [];
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers, body, at: Date.now() };
      seen.push(entry);
      answers[Math.min(seen.length - 1, answers.length - 1)]!(response, entry);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = new FeedbackClient({ secretKey, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 2 });
  return { client, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (response: ServerResponse) => {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers });
  response.end(JSON.stringify(body));
};
const suggestion = { id: 1, title: 'Dark mode', body: null, status: 'open', author: { external_id: 'u1', name: 'Ada' }, comment_count: 0, created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:00.000Z' };

describe('FeedbackClient', () => {
  it('sends the key as a bearer token and answers the typed body', async () => {
    const { client, seen } = await api([json(200, { data: [suggestion], next_cursor: null })]);
    const page = await client.suggestions.list({ limit: 10 });
    expect(page.data[0]!.title).toBe('Dark mode');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${secretKey}`);
    expect(seen[0]!.url).toBe('/api/v1/suggestions?limit=10');
  });

  it('retries a 429 after the Retry-After it was given, then answers the success', async () => {
    const { client, seen } = await api([json(429, { error: 'rate_limited', message: 'Slow down' }, { 'retry-after': '2' }), json(200, { data: [], next_cursor: null })]);
    await client.suggestions.list();
    expect(seen).toHaveLength(2);
    // Loosely: the retry waited for the Retry-After (2 s), not the default first backoff (about 1 s).
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1900);
  });

  it('retries a 503 and answers the success', async () => {
    const { client, seen } = await api([json(503, { error: 'service_unavailable', message: 'Retry' }), json(200, { data: [], next_cursor: null })]);
    await client.tickets.list();
    expect(seen).toHaveLength(2);
  });

  it('gives up after the retries with a typed error carrying code and request id', async () => {
    const { client, seen } = await api([json(500, { error: 'internal_error', message: 'Oops' })]);
    const failure = await client.analytics.get().catch((error: unknown) => error);
    expect(seen).toHaveLength(3);
    expect(failure).toBeInstanceOf(FeedbackApiError);
    expect(failure).toMatchObject({ status: 500, code: 'internal_error', requestId: 'req-1' });
  });

  it('answers a 429 that outlasts the retries as RateLimitError with its Retry-After', async () => {
    const { client } = await api([json(429, { error: 'rate_limited', message: 'Slow down' }, { 'retry-after': '3600' })]);
    const failure = await client.suggestions.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).retryAfterSeconds).toBe(3600);
  });

  it('sends one Idempotency-Key per create, the same on every retry of it', async () => {
    const { client, seen } = await api([json(503, { error: 'service_unavailable', message: 'Retry' }), json(201, suggestion)]);
    await client.suggestions.create({ title: 'Dark mode', user: { external_id: 'u1' } } as never);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    await client.suggestions.create({ title: 'Another' } as never, { idempotencyKey: 'my-key-1' });
    expect(seen[2]!.headers['idempotency-key']).toBe('my-key-1');
  });

  it('answers 401 as AuthenticationError', async () => {
    const { client, seen } = await api([json(401, { error: 'revoked_key', message: 'This key was revoked.' })]);
    await expect(client.suggestions.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(seen).toHaveLength(1);
  });

  it('answers 403 insufficient_scope as InsufficientScopeError with the scopes and where to manage them', async () => {
    const { client } = await api([
      json(403, {
        error: 'insufficient_scope',
        message: 'This key lacks the "analytics:read" scope.',
        required_scope: 'analytics:read',
        granted_scopes: ['suggestions:read'],
        manage_scopes_url: 'https://dashboard.example/apps/1/settings/api-keys',
        docs_url: 'https://docs.example/api-keys',
      }),
    ]);
    const failure = (await client.analytics.get().catch((error: unknown) => error)) as InsufficientScopeError;
    expect(failure).toBeInstanceOf(InsufficientScopeError);
    expect(failure).toMatchObject({ requiredScope: 'analytics:read', grantedScopes: ['suggestions:read'], manageScopesUrl: 'https://dashboard.example/apps/1/settings/api-keys' });
  });

  it('answers a 400 with its code and the body’s fields', async () => {
    const { client, seen } = await api([json(400, { error: 'validation_failed', message: 'Bad title', field: '/title' })]);
    const failure = (await client.tickets.create({} as never).catch((error: unknown) => error)) as FeedbackApiError;
    expect(failure.code).toBe('validation_failed');
    expect(failure.body['field']).toBe('/title');
    expect(seen).toHaveLength(1);
  });

  it('answers a 2xx that is not JSON (a proxy answering instead) as FeedbackApiError, not a SyntaxError', async () => {
    const { client } = await api([(response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>Sign in to the hotel network</html>');
    }]);
    const failure = await client.suggestions.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeedbackApiError);
    expect(failure).toMatchObject({ status: 200, code: 'unexpected_response' });
  });

  it('answers a refused connection, after its retries, as FeedbackConnectionError', async () => {
    const client = new FeedbackClient({ secretKey, baseUrl: 'http://127.0.0.1:9', maxRetries: 1 });
    const failure = await client.suggestions.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FeedbackConnectionError);
    // From Node 24.20, got's retry after a refused connection fails with this code instead
    // (sindresorhus/got#2469, fixed only in got 16, which needs Node 22): still a connection error.
    expect(['ECONNREFUSED', 'ERR_SOCKET_CLOSED_BEFORE_CONNECTION']).toContain((failure as FeedbackConnectionError).code);
  });

  it('iterates every item of every page, following next_cursor until it is null', async () => {
    const pages = [
      { data: [{ ...suggestion, id: 1 }, { ...suggestion, id: 2 }], next_cursor: 'c2' },
      { data: [{ ...suggestion, id: 3 }], next_cursor: 'c3' },
      { data: [], next_cursor: null },
    ];
    const { client, seen } = await api(pages.map((page) => json(200, page)));
    const ids: number[] = [];
    for await (const item of client.suggestions.listUpdatedSince(new Date('2026-11-22T09:00:00.000Z'), { limit: 2 })) ids.push(item.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(seen.map((request) => request.url)).toEqual([
      '/api/v1/suggestions?limit=2&updated_since=2026-11-22T09%3A00%3A00.000Z',
      '/api/v1/suggestions?limit=2&cursor=c2&updated_since=2026-11-22T09%3A00%3A00.000Z',
      '/api/v1/suggestions?limit=2&cursor=c3&updated_since=2026-11-22T09%3A00%3A00.000Z',
    ]);
  });

  it('never shows the secret key in its errors', async () => {
    const { client } = await api([json(401, { error: 'unknown_key', message: 'Unknown key.' })]);
    const failures = [
      await client.suggestions.list().catch((error: unknown) => error),
      await new FeedbackClient({ secretKey, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }).suggestions.list().catch((error: unknown) => error),
    ];
    for (const failure of failures) {
      expect(inspect(failure, { depth: 10, showHidden: true })).not.toContain(secretKey);
      expect(String(failure)).not.toContain(secretKey);
      expect(JSON.stringify(failure)).not.toContain(secretKey);
    }
  });

  it('refuses to start without a secret key or a base URL', () => {
    expect(() => new FeedbackClient({ secretKey: 'pk_live_x', baseUrl: 'https://api.example' })).toThrow(/sk_live_/);
    expect(() => new FeedbackClient({ secretKey, baseUrl: '' })).toThrow(/baseUrl/);
  });
});
