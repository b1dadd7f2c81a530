import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from './address-policy.js';
import { safeLookup } from './safe-lookup.js';

export interface SendResult {
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why no usable answer came (timeout, refused address, TLS, connection). */
  error?: string;
  durationMs: number;
  /** The first 1 KiB of the answer, for the delivery history. */
  bodyStart?: string;
}

export interface SenderOptions {
  /** Whole-request time limit; past it the attempt failed. Default: 10000. */
  timeoutMs?: number;
  /** Hosts allowed to be local or private: local test receivers only. Default: none. */
  allowedPrivateHosts?: readonly string[];
  /** An extra CA certificate (PEM file) to trust besides the system's: local test receivers only. */
  extraCaFile?: string;
}

const BODY_START_BYTES = 1024;

/**
 * POSTs one webhook. Redirects are never followed (a 3xx is a failed attempt), TLS certificates
 * are always verified, and the address dialled must be public (checked in the DNS lookup, and
 * here for a literal IP).
 *
 * This is the delivery hot path, so it sits on `node:https` directly rather than got: measured on
 * the development machine, got costs about three times the CPU per request (docs/decisions.md).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly allowed: Set<string>;
  private readonly timeoutMs: number;
  private readonly lookup;

  constructor(options: SenderOptions = {}) {
    this.allowed = new Set((options.allowedPrivateHosts ?? []).map((host) => host.toLowerCase()));
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.lookup = safeLookup((host) => this.allowed.has(host.toLowerCase()));
    const extraCa = options.extraCaFile ? [readFileSync(options.extraCaFile, 'utf8')] : [];
    // One agent and one TLS context, built once: connections are kept alive per endpoint. An
    // extra CA goes in through a prebuilt secure context, because a `ca` list on the agent would
    // be folded into the connection-pool key of every request and parsed again per connection.
    this.agent = new Agent({
      keepAlive: true,
      // Also the idle limit of a kept-alive socket, which Node lowers to a second under the
      // server's own Keep-Alive hint: a socket the receiver is about to close is not reused.
      timeout: this.timeoutMs,
      maxSockets: 256,
      rejectUnauthorized: true,
      ...(extraCa.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }) } : {}),
    });
  }

  send(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({ error: 'invalid URL', durationMs: 0 });
    }
    if (target.protocol !== 'https:') return Promise.resolve({ error: 'refused: only https is allowed', durationMs: 0 });
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowed.has(host.toLowerCase()) && ipaddr.isValid(host) && !isPublicAddress(host)) {
      return Promise.resolve({ error: 'refused: the address is not public', durationMs: 0 });
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const outgoing = request(
        target,
        {
          method: 'POST',
          agent: this.agent,
          lookup: this.lookup as never,
          rejectUnauthorized: true,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(rawBody),
            'user-agent': 'FeedbackWebhooks/1.0',
            ...headers,
          },
        },
        (response) => {
          // Keep only the start of the answer for the history; the rest is read and dropped so
          // the connection can be reused.
          const kept: Buffer[] = [];
          let keptBytes = 0;
          response.on('data', (chunk: Buffer) => {
            if (keptBytes < BODY_START_BYTES) {
              kept.push(chunk);
              keptBytes += chunk.length;
            }
          });
          response.on('end', () =>
            finish({ status: response.statusCode, bodyStart: Buffer.concat(kept).subarray(0, BODY_START_BYTES).toString('utf8') }),
          );
          response.on('error', (error) => finish({ status: response.statusCode, error: describe(error) }));
        },
      );
      // One limit for the whole exchange (connect, TLS, answer), not per socket inactivity.
      const timer = setTimeout(() => {
        finish({ error: `ETIMEDOUT: no complete answer within ${this.timeoutMs} ms` });
        outgoing.destroy();
      }, this.timeoutMs);
      outgoing.on('error', (error) => finish({ error: describe(error) }));
      // A string body goes out in one write with the headers (one TLS record, one syscall); a
      // Buffer would be written separately.
      outgoing.end(rawBody);
    });
  }

  /** Closes kept-alive connections (at shutdown). */
  close(): void {
    this.agent.destroy();
  }
}

function describe(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
