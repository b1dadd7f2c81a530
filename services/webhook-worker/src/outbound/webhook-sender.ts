import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { hostAllowlist, isPublicAddress } from './address-policy.js';
import { safeLookup } from './safe-lookup.js';
import type { ResolveAll } from './name-resolver.js';

export interface SendResult {
  /** The receiver's status, when it answered. */
  status?: number;
  /**
   * Why no answer came, or (beside a status that is not 2xx) why it did not end: timeout, refused
   * address, TLS, connection. Never beside a 2xx, which delivers whatever follows it.
   */
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
  /** How customers' hosts are resolved. Default: DNS (name-resolver.ts); another only in tests. */
  resolve?: ResolveAll;
  /** Told why a customer's host was refused at connection time (see SafeLookupOptions). */
  onHostRefused?: (host: string, reason: string) => void;
}

const BODY_START_BYTES = 1024;

/**
 * Every header of a webhook request as it is sent: the fixed ones, then the delivery's own
 * (signature, event, delivery id). The history shows them as the attempt's request.
 */
export function requestHeadersOf(headers: Record<string, string>): Record<string, string> {
  return { 'content-type': 'application/json', 'user-agent': 'FeedbackWebhooks/1.0', ...headers };
}

/**
 * POSTs one webhook. Redirects are never followed (a 3xx is a failed attempt), TLS certificates
 * are always verified, and the address dialled must be public (checked in the DNS lookup of each
 * connection, and here for a literal IP).
 *
 * This is the delivery hot path, so it uses the cheapest client per request: undici's pool, its
 * `dispatch` rather than a stream per answer, and a plain timer that is cleared, not
 * `AbortSignal.timeout`. The figures behind each choice are in docs/decisions.md ("The delivery
 * hot path").
 */
export class WebhookSender {
  private readonly dispatcher: Agent;
  private readonly isAllowlisted: (host: string) => boolean;
  private readonly timeoutMs: number;

  constructor(options: SenderOptions = {}) {
    this.isAllowlisted = hostAllowlist(options.allowedPrivateHosts ?? []);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const extraCa = options.extraCaFile ? [readFileSync(options.extraCaFile, 'utf8')] : [];
    // One pool per endpoint origin, connections kept alive (and retired before the receiver's own
    // Keep-Alive limit), and used in turn (patches/undici@7.30.2.patch): a new TLS connection costs
    // both sides far more than a request, and stock undici would let a burst's connections idle out
    // (docs/decisions.md, "undici is patched"). Without a redirect interceptor a 3xx is simply the answer. The connection
    // options go to tls.connect: the safe lookup is the DNS of every connection, and an extra CA
    // goes in as one prebuilt secure context rather than a CA list parsed again per connection.
    this.dispatcher = new Agent({
      connections: 256,
      connect: {
        lookup: safeLookup({ isAllowlisted: this.isAllowlisted, resolve: options.resolve, onRefused: options.onHostRefused }),
        rejectUnauthorized: true,
        timeout: this.timeoutMs,
        ...(extraCa.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }) } : {}),
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  async send(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { error: 'invalid URL', durationMs: 0 };
    }
    if (target.protocol !== 'https:') return { error: 'refused: only https is allowed', durationMs: 0 };
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.isAllowlisted(host) && ipaddr.isValid(host) && !isPublicAddress(host)) {
      return { error: 'refused: the address is not public', durationMs: 0 };
    }
    const request: Dispatcher.DispatchOptions = {
      origin: target.origin,
      path: target.pathname + target.search,
      method: 'POST',
      headers: requestHeadersOf(headers),
      body: rawBody,
    };
    return new Promise<SendResult>((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      const settle = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...result, durationMs: elapsed() });
      };
      // Only the start of the answer is kept, for the history; the rest is read and dropped so the
      // connection can be reused.
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let status = 0;
      const bodyStart = () => Buffer.concat(kept).subarray(0, BODY_START_BYTES).toString('utf8');
      // The receiver's status line decides: once it has said 2xx, the attempt is delivered, even
      // if the rest of its answer then stalls or breaks off (sending it again would only give the
      // receiver a duplicate of what it accepted). Any other status stays in the history beside
      // the error that ended the answer.
      const ended = (error: string) =>
        settle(status >= 200 && status < 300 ? { status, bodyStart: bodyStart() } : { ...(status ? { status, bodyStart: bodyStart() } : {}), error });
      // One limit for the whole exchange (waiting for a connection, connect, TLS, answer), not per
      // phase. Past it the request is abandoned where it stands.
      const timedOut = () => new Error(`ETIMEDOUT: no complete answer within ${this.timeoutMs} ms`);
      const deadline = setTimeout(() => {
        const error = timedOut();
        ended(error.message);
        controller?.abort(error);
      }, this.timeoutMs);
      this.dispatcher.dispatch(request, {
        onRequestStart: (started) => {
          controller = started;
          if (settled) started.abort(timedOut());
        },
        onResponseStart: (_controller, statusCode) => {
          // An interim answer (103 Early Hints) comes before the real one: not the receiver's say.
          if (statusCode >= 200) status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          if (keptBytes < BODY_START_BYTES) {
            kept.push(chunk);
            keptBytes += chunk.length;
          }
        },
        onResponseEnd: () => {
          settle({ status, bodyStart: bodyStart() });
        },
        onResponseError: (_controller, error) => {
          ended(attemptErrorText(error));
        },
      });
    });
  }

  /** Closes kept-alive connections (at shutdown). */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/** Longest error text kept: a TLS library's message may quote what the receiver sent. */
const ERROR_TEXT_LENGTH = 500;

/** The error as the history shows it: its code and message (a wrapped cause's, when it has none). */
export function attemptErrorText(error: Error & { code?: string; cause?: unknown }): string {
  const shown = !error.code && error.cause instanceof Error ? (error.cause as Error & { code?: string }) : error;
  return (shown.code ? `${shown.code}: ${shown.message}` : shown.message).slice(0, ERROR_TEXT_LENGTH);
}
