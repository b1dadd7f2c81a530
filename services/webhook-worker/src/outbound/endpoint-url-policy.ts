import { RpcError } from '@feedback/messaging';
import { hasHostNameForm, hostAllowlist, isPublicAddress, urlProblem } from './address-policy.js';
import { dnsResolveAll, resolveAllAddresses } from './name-resolver.js';
import type { ResolveAll } from './name-resolver.js';

/**
 * How long the save-time check waits for a name to resolve: a creation that waited for a silent
 * name server would finish after the dashboard stopped waiting.
 */
const RESOLVE_TIMEOUT_MS = 3000;

/** Every address `host` has in DNS (not through the system's lookup: see name-resolver.ts). */
export function addressesInDns(resolve: ResolveAll): (host: string) => Promise<string[]> {
  return async (host) => (await resolveAllAddresses(resolve, host)).map((entry) => entry.address);
}

/**
 * The save-time check of an endpoint URL: its form (https, a public host name or address) and
 * every address its name resolves to now. (The address actually dialled is checked again at
 * each connection: see safe-lookup.ts.) Hosts on the allowlist skip the name and address checks; it is
 * empty by default and exists for local test receivers.
 */
export class EndpointUrlPolicy {
  /** Whether a host is on the allowlist of local test receivers. */
  readonly isAllowlisted: (host: string) => boolean;

  constructor(
    allowedPrivateHosts: readonly string[] = [],
    private readonly resolve: (host: string) => Promise<string[]> = addressesInDns(dnsResolveAll({ deadlineMs: RESOLVE_TIMEOUT_MS })),
    /** Told why a host was refused (`not_public`, or the resolver's code), which the answer does not say. */
    private readonly onRefused?: (host: string, reason: string) => void,
  ) {
    this.isAllowlisted = hostAllowlist(allowedPrivateHosts);
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
      // The allowlist lifts the name and address checks only; the form's rules hold for every URL.
      if (url.protocol !== 'https:') throw new RpcError('unsafe_url', 'The URL must use https.');
      if (url.username || url.password) throw new RpcError('unsafe_url', 'The URL must not contain credentials.');
      if (!hasHostNameForm(url)) throw new RpcError('unsafe_url', 'The URL has a host with characters no host name has.');
      return withinLength(storedForm(url));
    }
    const problem = urlProblem(raw);
    if (problem) throw new RpcError('unsafe_url', `The URL ${problem}.`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // One answer whether the name does not resolve or resolves to a private address: two would
    // tell whoever saves URLs which names exist on the service's own network.
    const notPublic = new RpcError(
      'unsafe_url',
      `The host ${host} does not resolve to a public address: it did not resolve (within ${RESOLVE_TIMEOUT_MS / 1000} seconds), or resolves to a private, local or reserved one.`,
    );
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch (error) {
      this.onRefused?.(host, (error as NodeJS.ErrnoException).code ?? 'unknown');
      throw notPublic;
    }
    if (addresses.length === 0 || addresses.some((address) => !isPublicAddress(address))) {
      this.onRefused?.(host, 'not_public');
      throw notPublic;
    }
    return withinLength(storedForm(url));
  }
}

/**
 * The stored form within the limit the request was held to: escaping can make a URL of 2,048
 * characters many times longer, and an edit form sending it back would then be refused.
 */
function withinLength(stored: string): string {
  if (stored.length > MAX_URL_LENGTH) {
    throw new RpcError('unsafe_url', `The URL is longer than ${MAX_URL_LENGTH} characters once its special characters are escaped (${stored.length}).`);
  }
  return stored;
}

/**
 * What RFC 3986 allows in a path, query or fragment besides letters and digits; `%` only as the
 * start of an escape. `[`, `]` (only an IPv6 host's) and `#` (only the fragment's start) are not.
 */
const NOT_IN_URI_PART = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?@!$&'()*+,;=%]/g;

/** The longest URL an endpoint may have, as stored: the contracts' limit. */
export const MAX_URL_LENGTH = 2048;

/**
 * The URL as stored, sent to and shown: parsed (the host lower-cased and in punycode, spaces
 * around it trimmed and inside it escaped, a default port dropped), then with the characters the
 * parser leaves that RFC 3986 does not allow in a path, query or fragment (`|`, `^`, `[`, `]`, a
 * second `#`, a lone `%`) escaped too. Stored as typed, `https://example.com/hook ` or
 * `https://example.com/in?events[]=all` was a URL every later answer about the endpoint failed to
 * describe. (Credentials were refused before.)
 */
export function storedForm(url: URL): string {
  const escape = (part: string) => part.replace(NOT_IN_URI_PART, (character) => encodeURIComponent(character));
  const fragment = url.hash ? `#${escape(url.hash.slice(1))}` : '';
  return `${url.protocol}//${url.host}${escape(url.pathname)}${escape(url.search)}${fragment}`;
}
