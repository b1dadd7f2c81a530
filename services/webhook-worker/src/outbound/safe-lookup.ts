import type { LookupAddress, LookupOptions } from 'node:dns';
import { isPublicAddress } from './address-policy.js';
import { dnsResolveAll, systemResolveAll } from './name-resolver.js';
import type { ResolveAll } from './name-resolver.js';

export type { ResolveAll } from './name-resolver.js';

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for outbound connections that refuses any non-public address, so a name that
 * passed the save-time check but now resolves somewhere private (DNS rebinding) is never dialled:
 * the address checked is the address connected to. Every address the name has is checked, not
 * only the first: with `all` (Node's happy eyeballs) any of them may be dialled.
 *
 * A customer's host is asked of DNS (`resolve`; see name-resolver.ts for why not the system's
 * lookup), a host on the allowlist of local test receivers of the system (`resolveAllowlisted`).
 * A name that does not resolve and one that resolves somewhere private get the same refusal, as
 * at save time: the delivery history would otherwise tell a team which names exist on the
 * service's own network.
 */
export function safeLookup(isAllowlisted: (host: string) => boolean, resolve: ResolveAll = dnsResolveAll(), resolveAllowlisted: ResolveAll = systemResolveAll) {
  return (hostname: string, options: LookupOptions, callback: Callback): void => {
    const allowlisted = isAllowlisted(hostname);
    (allowlisted ? resolveAllowlisted : resolve)(hostname, { ...options, all: true }, (error, list) => {
      if (allowlisted && error) return callback(error, []);
      if (!allowlisted && (error || list.length === 0 || list.some((entry) => !isPublicAddress(entry.address)))) {
        const refused: NodeJS.ErrnoException = new Error(`refused: ${hostname} does not resolve to a public address`);
        refused.code = 'EUNSAFEADDRESS';
        return callback(refused, []);
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
