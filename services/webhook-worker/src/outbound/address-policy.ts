import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The IPv6 space routed on the internet. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Which addresses webhooks may be sent to: public unicast only. Everything else is refused,
 * in IPv4 and IPv6 (IPv4-mapped IPv6 is judged as the IPv4 it carries): loopback, private,
 * link-local (with the cloud metadata address), carrier-grade NAT, multicast, broadcast,
 * reserved, documentation and benchmarking ranges, unique-local, unspecified, and any IPv6
 * address outside global unicast.
 */
export function isPublicAddress(address: string): boolean {
  const canonical = address.includes(':') ? canonicalIPv6(address) : address;
  if (canonical === undefined || !ipaddr.isValid(canonical)) return false;
  let parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  // ipaddr.js names every special-purpose range; only "unicast" is a public address.
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv4') {
    // Ranges ipaddr.js files under unicast that are still not public.
    const v4 = parsed as ipaddr.IPv4;
    const blocked: Array<[string, number]> = [
      ['192.0.0.0', 24], // IETF protocol assignments
      ['198.18.0.0', 15], // benchmarking
    ];
    return !blocked.some(([network, bits]) => v4.match(ipaddr.IPv4.parse(network), bits));
  }
  // ipaddr.js calls every IPv6 address outside its named ranges unicast, also the deprecated
  // IPv4-compatible ::a.b.c.d (::7f00:1 is 127.0.0.1) and unassigned space; only global unicast
  // (2000::/3) is routed on the internet.
  return (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/**
 * An IPv6 address in the URL standard's form, the last 32 bits in hex: ipaddr.js reads the
 * dotted IPv4-compatible form `::8.8.8.8` as IPv4-mapped (`::ffff:8.8.8.8`, judged as the
 * public 8.8.8.8), and resolvers answer in that form (`::808:808` comes back as `::8.8.8.8`).
 * Undefined for what is no IPv6 address (a zone index, `fe80::1%eth0`, included).
 */
function canonicalIPv6(address: string): string | undefined {
  // Checked first: inside brackets of a URL, what is no address could still parse (`x@[…` is
  // user info before a host).
  if (!isIPv6(address)) return undefined;
  try {
    return new URL(`https://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/**
 * A URL's host as the policies compare it: without an IPv6 literal's brackets or a trailing dot
 * (`localhost.` is `localhost` to a resolver), in lower case.
 */
export function comparableHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
}

/**
 * The allowlist of local test receivers as one check, shared by the save-time policy and the
 * sender: an entry matches a host written either way (`::1` or `[::1]`, with a final dot or not).
 */
export function hostAllowlist(hosts: readonly string[]): (host: string) => boolean {
  const allowed = new Set(hosts.map(comparableHost));
  return (host) => allowed.has(comparableHost(host));
}

/**
 * Whether a parsed URL's host is written only with what a host name or address may hold. The
 * WHATWG parser lets `{`, `"` or a backquote through in a domain; RFC 3986 does not, and such a
 * URL would be one no answer about the endpoint could carry. (An international name is in
 * punycode by then.)
 */
export function hasHostNameForm(url: URL): boolean {
  return url.hostname.startsWith('[') || /^[a-z0-9._-]+$/.test(url.hostname);
}

/** Why a URL cannot be a webhook endpoint, or undefined when its form is acceptable. */
export function urlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not contain credentials';
  if (!hasHostNameForm(url)) return 'has a host with characters no host name has';
  const host = comparableHost(url.hostname);
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') || !host.includes('.') && !host.includes(':')) {
    return 'must name a public host';
  }
  // The WHATWG URL parser already turned decimal, octal and hex IPv4 forms into dotted quads.
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return 'must not point to a private, local or reserved address';
  return undefined;
}
