import { Resolver, lookup as systemLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';

/** Every address of a name, as `dns.lookup` with `all: true` answers. */
export type ResolveAll = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface DnsResolverOptions {
  /** Name servers to ask (`host` or `host:port`). Default: the system's, from /etc/resolv.conf. */
  servers?: readonly string[];
  /** How long one query waits for a server before asking again. Default: 1000. */
  timeoutMs?: number;
  /** Queries per server before giving up. Default: 2. */
  tries?: number;
}

/**
 * The addresses of a customer's host, asked of the name servers directly (c-ares), never through
 * the system's `getaddrinfo` (`dns.lookup`). That one runs on libuv's pool of four threads, which
 * the process shares for its own connections, files and crypto, and a lookup holds its thread
 * until the system resolver gives up (10 s or more for a name server that never answers), however
 * early the caller stopped waiting: four endpoints whose DNS is silent, or four URLs of such
 * names saved in a row, would stall every other endpoint's connections. A query here is a socket,
 * with a bounded time of its own. Customers' hosts are public names in public DNS, so the hosts
 * file and search domains, which only `getaddrinfo` reads, do not concern them.
 *
 * IPv4 addresses come before IPv6 ones; a family asked for alone is the only one asked.
 */
export function dnsResolveAll(options: DnsResolverOptions = {}): ResolveAll {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 1000, tries: options.tries ?? 2 });
  if (options.servers) resolver.setServers([...options.servers]);
  const query = (family: 4 | 6, hostname: string) =>
    new Promise<LookupAddress[]>((resolve, reject) => {
      const answer = (error: NodeJS.ErrnoException | null, addresses: string[]) => {
        if (error) reject(error);
        else resolve(addresses.map((address) => ({ address, family })));
      };
      if (family === 4) resolver.resolve4(hostname, answer);
      else resolver.resolve6(hostname, answer);
    });
  return (hostname, lookupOptions, callback) => {
    const families: Array<4 | 6> = lookupOptions.family === 4 || lookupOptions.family === 6 ? [lookupOptions.family] : [4, 6];
    void Promise.allSettled(families.map((family) => query(family, hostname))).then((outcomes) => {
      const addresses = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
      if (addresses.length > 0) return callback(null, addresses);
      // Neither family answered: the first failure says why (ENOTFOUND, ENODATA, ETIMEOUT, ...).
      const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      callback(failure ? (failure.reason as NodeJS.ErrnoException) : Object.assign(new Error(`${hostname} has no address`), { code: 'ENODATA' }), []);
    });
  };
}

/**
 * The system's lookup, hosts file included: for the allowlist of local test receivers only
 * (`localhost` is in no DNS), never for a customer's host.
 */
export const systemResolveAll: ResolveAll = (hostname, options, callback) => systemLookup(hostname, options, callback);

/** The same answers as a promise, for the save-time check. */
export function resolveAllAddresses(resolve: ResolveAll, hostname: string): Promise<LookupAddress[]> {
  return new Promise((fulfil, reject) => {
    resolve(hostname, { all: true }, (error, addresses) => (error ? reject(error) : fulfil(addresses)));
  });
}
