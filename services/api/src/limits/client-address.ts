import { isIPv4, isIPv6 } from 'node:net';

/** An IPv6 address as its eight groups, each a number. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  // An IPv4 tail (::ffff:192.0.2.1) is two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parts = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const before = parts(head);
  const after = rest === undefined ? [] : parts(rest);
  const groups = rest === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.length === 8 ? groups : undefined;
}

/**
 * The key a client address is limited by. An IPv4 address as it is. An IPv6 address by its /64:
 * one subscriber is routinely given a whole /64, so counting single addresses would give one
 * client 2^64 allowances. An IPv4 address written as IPv6 (::ffff:a.b.c.d) counts as IPv4.
 */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address.split('%')[0]!);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
