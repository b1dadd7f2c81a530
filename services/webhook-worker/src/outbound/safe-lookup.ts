import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isPublicAddress } from './address-policy.js';

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Every address of a name, as `dns.lookup` with `all: true` answers. */
export type ResolveAll = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A DNS lookup for outbound connections that refuses any non-public address, so a name that
 * passed the save-time check but now resolves somewhere private (DNS rebinding) is never dialled:
 * the address checked is the address connected to. Every address the name has is checked, not
 * only the first: with `all` (Node's happy eyeballs) any of them may be dialled. `resolve` is the
 * system's lookup, and another only in tests.
 */
export function safeLookup(isAllowlisted: (host: string) => boolean, resolve: ResolveAll = dnsLookup) {
  return (hostname: string, options: LookupOptions, callback: Callback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses;
      if (!isAllowlisted(hostname) && (list.length === 0 || list.some((entry) => !isPublicAddress(entry.address)))) {
        const refused: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a non-public address`);
        refused.code = 'EUNSAFEADDRESS';
        return callback(refused, []);
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
