import type { LookupAddress, LookupOptions } from 'node:dns';
import { isPublicAddress } from './address-policy.js';
import { dnsResolveAll, systemResolveAll } from './name-resolver.js';
import type { ResolveAll } from './name-resolver.js';

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export interface SafeLookupOptions {
  /** Hosts of local test receivers, which may be local and are resolved the system's way. */
  isAllowlisted: (host: string) => boolean;
  /** How customers' hosts are resolved. Default: DNS (name-resolver.ts); another only in tests. */
  resolve?: ResolveAll;
  /** How allowlisted hosts are resolved. Default: the system's lookup (hosts file included). */
  resolveAllowlisted?: ResolveAll;
  /**
   * Told of each customer's host refused, and why: `not_public`, or the resolver's error code
   * (ENOTFOUND, ETIMEOUT, ...), which the delivery history does not show. For logs and metrics.
   */
  onRefused?: (host: string, reason: string) => void;
}

/**
 * A DNS lookup for outbound connections that refuses any non-public address, so a name that
 * passed the save-time check but now resolves somewhere private (DNS rebinding) is never dialled:
 * the address checked is the address connected to. Every address the name has is checked, not
 * only the first: with `all` (Node's happy eyeballs) any of them may be dialled.
 *
 * A customer's host is asked of DNS (see name-resolver.ts for why not the system's lookup). A
 * name that does not resolve and one that resolves somewhere private get the same refusal, as at
 * save time: the delivery history would otherwise tell a team which names exist on the service's
 * own network. Why it was refused goes to `onRefused`, for the operators.
 */
export function safeLookup({ isAllowlisted, resolve = dnsResolveAll(), resolveAllowlisted = systemResolveAll, onRefused }: SafeLookupOptions) {
  return (hostname: string, options: LookupOptions, callback: Callback): void => {
    const allowlisted = isAllowlisted(hostname);
    (allowlisted ? resolveAllowlisted : resolve)(hostname, { ...options, all: true }, (error, list) => {
      if (allowlisted && error) return callback(error, []);
      if (!allowlisted && (error || list.length === 0 || list.some((entry) => !isPublicAddress(entry.address)))) {
        onRefused?.(hostname, error ? (error.code ?? 'unknown') : 'not_public');
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
