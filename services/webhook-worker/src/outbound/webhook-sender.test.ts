import { once } from 'node:events';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { testCertificates } from '@feedback/test-support';
import { systemResolveAll } from './name-resolver.js';
import { WebhookSender, attemptErrorText } from './webhook-sender.js';

// The sender against real local HTTPS servers, trusted through the test CA as a local test
// receiver is: what counts as an answer, and the one time limit over the whole exchange.
const TIMEOUT_MS = 400;
let sender: WebhookSender;
const servers: Server[] = [];

beforeAll(() => {
  sender = new WebhookSender({ timeoutMs: TIMEOUT_MS, allowedPrivateHosts: ['localhost'], extraCaFile: testCertificates().caFile });
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

afterAll(async () => {
  await sender.close();
});

async function serve(handle: (request: IncomingMessage, response: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer(testCertificates().trusted, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `https://localhost:${(server.address() as AddressInfo).port}/hooks?from=test`;
}

/** A receiver whose answer, with this status, keeps trickling in a byte at a time and never ends. */
const trickling = (status: number) =>
  serve((_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' });
    const trickle = setInterval(() => response.write('.'), TIMEOUT_MS / 8);
    response.on('close', () => clearInterval(trickle));
  });

describe('WebhookSender', () => {
  it('POSTs the raw body with its headers, and keeps the answer status and the first KiB of its body', async () => {
    const seen: Array<{ method?: string; url?: string; type?: string; event?: string; body: string }> = [];
    const url = await serve((request, response, body) => {
      seen.push({ method: request.method, url: request.url, type: request.headers['content-type'], event: request.headers['x-service-event'] as string, body });
      response.writeHead(202).end('é'.repeat(600) + 'tail');
    });
    const result = await sender.send(url, '{"id":"d-1"}', { 'X-Service-Event': 'suggestion.created' });
    expect(seen).toEqual([{ method: 'POST', url: '/hooks?from=test', type: 'application/json', event: 'suggestion.created', body: '{"id":"d-1"}' }]);
    expect(result.status).toBe(202);
    expect(result.error).toBeUndefined();
    expect(Buffer.byteLength(result.bodyStart!)).toBeLessThanOrEqual(1024);
    expect(result.bodyStart!.startsWith('éé')).toBe(true);
    expect(result.bodyStart).not.toContain('tail');
  });

  it('answers a redirect with its own status and never follows it', async () => {
    let followed = 0;
    const url = await serve((request, response) => {
      if (request.url === '/elsewhere') followed += 1;
      response.writeHead(302, { location: '/elsewhere' }).end();
    });
    const result = await sender.send(url, '{}', {});
    expect(result.status).toBe(302);
    expect(followed).toBe(0);
  });

  it('fails an attempt whose receiver never answers, at the time limit', async () => {
    const url = await serve(() => undefined);
    const result = await sender.send(url, '{}', {});
    expect(result.status).toBeUndefined();
    expect(result.error).toBe(`ETIMEDOUT: no complete answer within ${TIMEOUT_MS} ms`);
    // The history shows how long it was given (timers may fire a millisecond early).
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  });

  it('limits the whole exchange: an answer that keeps trickling in fails at the time limit, its status kept', async () => {
    // Each chunk comes well within any per-phase limit, but the answer as a whole never ends.
    const result = await sender.send(await trickling(503), '{}', {});
    // Had the limit been per read, this would never end (and fail at the test's own limit).
    expect(result).toMatchObject({ status: 503, error: `ETIMEDOUT: no complete answer within ${TIMEOUT_MS} ms` });
    expect(result.bodyStart).toMatch(/^\.+$/);
  });

  it('takes an interim answer (103 Early Hints) for no answer at all', async () => {
    const url = await serve((_request, response) => {
      response.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    });
    const result = await sender.send(url, '{}', {});
    expect(result.status).toBeUndefined();
    expect(result.error).toBe(`ETIMEDOUT: no complete answer within ${TIMEOUT_MS} ms`);
  });

  it('counts a 2xx as the answer, even when the rest of it then stalls or breaks off', async () => {
    const result = await sender.send(await trickling(200), '{}', {});
    expect(result.status).toBe(200);
    expect(result.error).toBeUndefined();
    expect(result.bodyStart).toMatch(/^\.+$/);

    const broken = await serve((_request, response) => {
      response.writeHead(202, { 'content-type': 'text/plain', 'content-length': '100' });
      response.write('accepted, and then', () => setTimeout(() => response.socket?.destroy(), 20));
    });
    expect(await sender.send(broken, '{}', {})).toMatchObject({ status: 202, bodyStart: 'accepted, and then' });
    expect((await sender.send(broken, '{}', {})).error).toBeUndefined();
  });

  it('sends the next attempt normally after one timed out on the same receiver', async () => {
    let calls = 0;
    const url = await serve((_request, response) => {
      calls += 1;
      if (calls > 1) response.writeHead(204).end();
    });
    expect((await sender.send(url, '{}', {})).error).toMatch(/^ETIMEDOUT/);
    expect(await sender.send(url, '{}', {})).toMatchObject({ status: 204 });
  });

  it('keeps an error as its code and message, a wrapped cause\'s when it has none, at most 500 characters', () => {
    expect(attemptErrorText(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1');
    expect(attemptErrorText(new Error('fetch failed', { cause: Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' }) }))).toBe('CERT_HAS_EXPIRED: certificate has expired');
    // A TLS library's message may quote what the receiver sent, at any length.
    expect(attemptErrorText(Object.assign(new Error('x'.repeat(2000)), { code: 'ERR_SSL' }))).toHaveLength(500);
  });

  it('fails with the connection error when nothing listens', async () => {
    const url = await serve(() => undefined);
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    const result = await sender.send(url, '{}', {});
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/^ECONNREFUSED/);
  });

  it('refuses plain http and a private address before connecting, and a local name not on the allowlist when it resolves', async () => {
    // `localhost` resolved as the system resolves it, as a customer's name that DNS answers
    // with a loopback address would be.
    const strict = new WebhookSender({ timeoutMs: TIMEOUT_MS, resolve: systemResolveAll });
    try {
      expect(await strict.send('http://example.com/hooks', '{}', {})).toEqual({ error: 'refused: only https is allowed', durationMs: 0 });
      expect(await strict.send('https://10.0.0.8/hooks', '{}', {})).toEqual({ error: 'refused: the address is not public', durationMs: 0 });
      const url = await serve((_request, response) => response.writeHead(204).end());
      const result = await strict.send(url, '{}', {});
      expect(result.status).toBeUndefined();
      expect(result.error).toBe('EUNSAFEADDRESS: refused: localhost does not resolve to a public address');
    } finally {
      await strict.close();
    }
  });
  it('keeps using, in turn, the connections a burst opened, rather than letting them idle out behind the first', async () => {
    // Each connection the receiver accepted, and how many requests it carried.
    const carried = new Map<object, number>();
    const url = await serve((request, response) => {
      carried.set(request.socket, (carried.get(request.socket) ?? 0) + 1);
      response.writeHead(204).end();
    });
    // A burst of four at once opens four connections (one request each, HTTP/1.1).
    const burst = await Promise.all(Array.from({ length: 4 }, (_, n) => sender.send(url, `{"id":"b-${n}"}`, {})));
    expect(burst.map((result) => result.status)).toEqual([204, 204, 204, 204]);
    expect(carried.size).toBe(4);
    // Then one at a time: each of the four carries its share, so none sits idle long enough to be
    // closed and opened again (with a new TLS handshake) at the next burst. A share is five of the
    // twenty, though not exactly: a connection whose last answer the client has not yet marked
    // finished when the next request starts is passed over for that turn (seen once in CI: 5, 6, 6, 7). Without the turns, the first connection
    // would carry all twenty and the others one each.
    for (let n = 0; n < 20; n += 1) expect((await sender.send(url, `{"id":"s-${n}"}`, {})).status).toBe(204);
    expect(carried.size).toBe(4);
    for (const requests of carried.values()) expect(requests).toBeGreaterThanOrEqual(4);
  });
});
