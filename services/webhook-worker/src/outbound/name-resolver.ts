import { Resolver, lookup as systemLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/** Every address of a name, as `dns.lookup` with `all: true` answers. */
export type ResolveAll = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface DnsResolverOptions {
  /** Name servers to ask (`host` or `host:port`). Default: the system's, from /etc/resolv.conf. */
  servers?: readonly string[];
  /**
   * How long a lookup waits for its answers, all servers and tries included; past it, it fails
   * with ETIMEOUT. c-ares alone doubles its wait at each try and asks each server in turn, so a
   * silent server would hold a lookup for seconds (docs/decisions.md). Default: 3000.
   */
  deadlineMs?: number;
}

/** c-ares' own wait for one server's answer, and how often it asks each server. */
const QUERY_TIMEOUT_MS = 1000;
const QUERY_TRIES = 2;
/** Once one family has answered, how long the other may still take. */
const OTHER_FAMILY_GRACE_MS = 250;

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
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  if (options.servers) resolver.setServers([...options.servers]);
  const deadlineMs = options.deadlineMs ?? 3000;
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
    // An address is its own answer (c-ares would ask DNS for it as a name).
    const literal = isIP(hostname);
    if (literal) return callback(null, [{ address: hostname, family: literal }]);
    const families: Array<4 | 6> = lookupOptions.family === 4 || lookupOptions.family === 6 ? [lookupOptions.family] : [4, 6];
    const answers = new Map<4 | 6, LookupAddress[]>();
    const failures: NodeJS.ErrnoException[] = [];
    let pending = families.length;
    let finished = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      const addresses = families.flatMap((family) => answers.get(family) ?? []);
      if (addresses.length > 0) return callback(null, addresses);
      // No family answered: the first failure says why (ENOTFOUND, ENODATA, ...), else the deadline.
      callback(failures[0] ?? Object.assign(new Error(`no answer for ${hostname} within ${deadlineMs} ms`), { code: 'ETIMEOUT' }), []);
    };
    // A query still out when the lookup finishes is left to end on its own: a socket, no thread.
    const deadline = setTimeout(finish, deadlineMs).unref();
    for (const family of families) {
      query(family, hostname)
        .then(
          (addresses) => void answers.set(family, addresses),
          (error: NodeJS.ErrnoException) => void failures.push(error),
        )
        .finally(() => {
          pending -= 1;
          if (pending === 0) return finish();
          // One family has answered: the other gets a moment more, not the whole deadline (some
          // name servers never answer AAAA queries).
          if (answers.size > 0 && !grace) grace = setTimeout(finish, OTHER_FAMILY_GRACE_MS).unref();
        });
    }
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
