import { lookup } from 'node:dns/promises';
import { RpcError } from '@feedback/messaging';
import { comparableHost, isPublicAddress, urlProblem } from './address-policy.js';

/**
 * How long the save-time check waits for a name to resolve. The system resolver can take many
 * seconds to give up, and the creation would then finish after the dashboard stopped waiting.
 */
const RESOLVE_TIMEOUT_MS = 3000;

/** Every address `host` resolves to, or a failure once `timeoutMs` has passed. */
function resolveWithin(timeoutMs: number): (host: string) => Promise<string[]> {
  return async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return (await Promise.race([lookup(host, { all: true, verbatim: true }), timedOut])).map((entry) => entry.address);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The save-time check of an endpoint URL: its form (https, a public host name or address) and
 * every address its name resolves to now. (The address actually dialled is checked again at
 * each connection: see safe-lookup.ts.) Hosts on the allowlist skip the address checks; it is
 * empty by default and exists for local test receivers.
 */
export class EndpointUrlPolicy {
  private readonly allowedPrivateHosts: ReadonlySet<string>;

  constructor(
    allowedPrivateHosts: readonly string[] = [],
    private readonly resolve: (host: string) => Promise<string[]> = resolveWithin(RESOLVE_TIMEOUT_MS),
  ) {
    this.allowedPrivateHosts = new Set(allowedPrivateHosts.map(comparableHost));
  }

  /** Whether a host is on the allowlist, written either way (`::1` or `[::1]`, with a final dot or not). */
  isAllowlisted(host: string): boolean {
    return this.allowedPrivateHosts.has(comparableHost(host));
  }

  /** Checks a URL given for an endpoint; answers it as it is to be stored (see storedForm). */
  async check(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new RpcError('unsafe_url', 'The URL is not valid.');
    }
    if (this.isAllowlisted(url.hostname)) {
      // The allowlist lifts the address checks only; the form's rules hold for every URL.
      if (url.protocol !== 'https:') throw new RpcError('unsafe_url', 'The URL must use https.');
      if (url.username || url.password) throw new RpcError('unsafe_url', 'The URL must not contain credentials.');
      return storedForm(url);
    }
    const problem = urlProblem(raw);
    if (problem) throw new RpcError('unsafe_url', `The URL ${problem}.`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      throw new RpcError('unsafe_url', `The host ${host} does not resolve (or did not within ${RESOLVE_TIMEOUT_MS / 1000} seconds).`);
    }
    if (addresses.length === 0 || addresses.some((address) => !isPublicAddress(address))) {
      throw new RpcError('unsafe_url', `The host ${host} resolves to a private, local or reserved address.`);
    }
    return storedForm(url);
  }
}

/** What RFC 3986 allows in a URI besides letters and digits; `%` only as the start of an escape. */
const NOT_IN_URI = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g;

/**
 * The URL as stored, sent to and shown: parsed (the host lower-cased and in punycode, spaces
 * around it trimmed and inside it escaped, a default port dropped), then with the characters the
 * parser leaves that RFC 3986 does not allow (`|`, `^`, a lone `%`) escaped too. Stored as typed,
 * `https://example.com/hook ` was a URL every later answer about the endpoint failed to describe.
 */
export function storedForm(url: URL): string {
  return url.href.replace(NOT_IN_URI, (character) => encodeURIComponent(character));
}
