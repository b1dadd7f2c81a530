import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** A CA made for this run; its certificate file is what the worker is told to trust. */
  caFile: string;
  trusted: { key: string; cert: string };
  /** The same key and certificate as files, for a receiver started as its own process. */
  trustedFiles: { keyFile: string; certFile: string };
  /** Self-signed for localhost: a receiver no one should trust. */
  untrusted: { key: string; cert: string };
  /** Signed by the CA, but for another name (other.example): a receiver at localhost must not be trusted with it. */
  otherName: { key: string; cert: string };
}

let made: TestCertificates | undefined;

/** Makes (once per process) a CA, a localhost certificate it signs, one it signs for another name, and an untrusted one, with openssl. */
export function testCertificates(): TestCertificates {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'feedback-certs-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Feedback test CA');
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.cnf');
  run('req', ...ec, '-keyout', 'other.key', '-out', 'other.csr', '-subj', '/CN=other.example');
  writeFileSync(join(dir, 'other-san.cnf'), 'subjectAltName=DNS:other.example\n');
  run('x509', '-req', '-in', 'other.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'other.crt', '-days', '2', '-extfile', 'other-san.cnf');
  run('req', '-x509', ...ec, '-keyout', 'untrusted.key', '-out', 'untrusted.crt', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  made = {
    caFile: join(dir, 'ca.crt'),
    trusted: { key: read('server.key'), cert: read('server.crt') },
    trustedFiles: { keyFile: join(dir, 'server.key'), certFile: join(dir, 'server.crt') },
    untrusted: { key: read('untrusted.key'), cert: read('untrusted.crt') },
    otherName: { key: read('other.key'), cert: read('other.crt') },
  };
  return made;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
  receivedAt: number;
}

/**
 * A real HTTPS server standing in for a customer's webhook receiver. It records every request
 * and answers with whatever `answer` says (status, optional headers and body), 200 by default;
 * the body is `answer <status>` unless given. An answer waits `delayMs`, and for `until` to
 * settle when given (a test holds answers back and lets them go when it chooses).
 */
export class HttpsReceiver {
  readonly received: ReceivedRequest[] = [];
  answer: (
    request: ReceivedRequest,
    index: number,
  ) => { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number; until?: Promise<unknown> } = () => ({
    status: 200,
  });

  /** Requests received and not yet answered (or given up by their sender). */
  inFlight = 0;
  /** The most requests that were ever in flight at once. */
  mostInFlight = 0;

  private constructor(private readonly server: Server) {}

  static async start(credentials: { key: string; cert: string }): Promise<HttpsReceiver> {
    // Assigned once listening; requests cannot arrive before that.
    // eslint-disable-next-line prefer-const
    let receiver: HttpsReceiver | undefined;
    const server = createServer(credentials, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        const index = receiver!.received.push(received) - 1;
        receiver!.inFlight += 1;
        receiver!.mostInFlight = Math.max(receiver!.mostInFlight, receiver!.inFlight);
        response.once('close', () => (receiver!.inFlight -= 1));
        const { status, headers, body, delayMs, until } = receiver!.answer(received, index);
        const delayed = new Promise((resolve) => setTimeout(resolve, delayMs ?? 0));
        void Promise.allSettled([delayed, until]).then(() => {
          if (response.destroyed) return;
          response.writeHead(status, headers);
          response.end(body ?? `answer ${status}`);
        });
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiver = new HttpsReceiver(server);
    return receiver;
  }

  url(path = '/hooks'): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
