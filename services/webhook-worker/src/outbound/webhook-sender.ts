import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import got from 'got';
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

/**
 * POSTs one webhook. Redirects are never followed (a 3xx is a failed attempt), TLS certificates
 * are always verified, and the address dialled must be public (checked in the DNS lookup, and
 * here for a literal IP).
 */
export class WebhookSender {
  private readonly client;
  private readonly allowed: Set<string>;

  constructor(options: SenderOptions = {}) {
    this.allowed = new Set((options.allowedPrivateHosts ?? []).map((host) => host.toLowerCase()));
    const extraCa = options.extraCaFile ? [readFileSync(options.extraCaFile, 'utf8')] : [];
    // One agent, built once: connections are kept alive per endpoint, and a trusted-CA list given
    // here (not per request) is not turned into a connection key and a TLS context every time.
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 256,
      rejectUnauthorized: true,
      ...(extraCa.length > 0 ? { ca: [...rootCertificates, ...extraCa] } : {}),
    });
    this.client = got.extend({
      agent: { https: agent },
      timeout: { request: options.timeoutMs ?? 10_000 },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: false,
      dnsLookup: safeLookup((host) => this.allowed.has(host.toLowerCase())) as never,
      https: { rejectUnauthorized: true },
    });
  }

  async send(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!this.allowed.has(host.toLowerCase()) && ipaddr.isValid(host) && !isPublicAddress(host)) {
      return { error: 'refused: the address is not public', durationMs: 0 };
    }
    try {
      const response = await this.client.post(url, {
        body: rawBody,
        headers: { 'content-type': 'application/json', 'user-agent': 'FeedbackWebhooks/1.0', ...headers },
      });
      return { status: response.statusCode, durationMs: elapsed(), bodyStart: String(response.body).slice(0, 1024) };
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      return { error: code ? `${code}: ${message}` : message, durationMs: elapsed() };
    }
  }
}
