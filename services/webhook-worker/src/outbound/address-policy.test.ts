import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { rpcMethods } from '@feedback/contracts';
import { isPublicAddress, urlProblem } from './address-policy.js';
import { EndpointUrlPolicy } from './endpoint-url-policy.js';
import type { ResolveAll } from './name-resolver.js';
import { safeLookup } from './safe-lookup.js';

describe('webhook address policy', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '240.0.0.1', '192.0.0.8',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::7f00:1',
    // IPv4-compatible (deprecated) forms of loopback and the metadata address, unassigned space,
    // and the 6to4 and Teredo ranges, which carry an IPv4 address of their own.
    '::7f00:1', '::127.0.0.1', '::a9fe:a9fe', '4000::1', '100::1', '2002:7f00:1::1', '2001:0:7f00:1::1',
    // The IPv4-compatible form of a public address, dotted as resolvers write it (not IPv4-mapped,
    // which ipaddr.js alone took it for), and a zone index.
    '::8.8.8.8', '::808:808', 'fe80::1%eth0',
    // No addresses at all, which a URL built around them would read as user info and a host.
    '::1]@[2606:4700::1', 'x@[2606:4700::1', '127.0.0.1:@[2606:4700::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['http://example.com/hook', 'must use https'],
    ['https://localhost/hook', 'must name a public host'],
    ['https://api.localhost/hook', 'must name a public host'],
    ['https://intranet/hook', 'must name a public host'],
    ['https://127.0.0.1/hook', 'must not point'],
    ['https://2130706433/hook', 'must not point'],
    ['https://0x7f.0.0.1/hook', 'must not point'],
    ['https://0177.0.0.1/hook', 'must not point'],
    ['https://[::1]/hook', 'must not point'],
    ['https://[::ffff:169.254.169.254]/hook', 'must not point'],
    ['https://[::127.0.0.1]/hook', 'must not point'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['not a url', 'not a valid URL'],
  ])('refuses %s', (url, problem) => {
    expect(urlProblem(url)).toMatch(problem);
  });

  it('accepts a public https URL', () => {
    expect(urlProblem('https://hooks.example.com/feedback?x=1')).toBeUndefined();
  });
});

describe('endpoint URL as stored', () => {
  const policy = new EndpointUrlPolicy([], async () => ['93.184.216.34']);
  const result = rpcMethods['webhook-worker.getEndpoint'].result;
  const described = (url: string) => ({
    id: randomUUID(),
    app_id: 1,
    name: 'E',
    url,
    events: ['ticket.created'],
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    health: { last_success_at: null, failing_since: null, attempts_last_day: 0, success_rate_last_day: null },
    pause: null,
  });

  it.each([
    ['https://example.com/hook ', 'https://example.com/hook'],
    [' https://Example.COM:443/a b', 'https://example.com/a%20b'],
    ['https://example.com/a|b^c?q=1|2', 'https://example.com/a%7Cb%5Ec?q=1%7C2'],
    ['https://example.com/100%', 'https://example.com/100%25'],
    ['https://example.com/ok%20already', 'https://example.com/ok%20already'],
    ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ['https://example.com/in?events[]=all', 'https://example.com/in?events%5B%5D=all'],
    ['https://example.com/a[1]', 'https://example.com/a%5B1%5D'],
    ['https://example.com/a#b#c', 'https://example.com/a#b%23c'],
    ['https://example.com:8443/a?b=1#top', 'https://example.com:8443/a?b=1#top'],
  ])('stores %j as %s, a URL every answer about the endpoint can carry', async (raw, stored) => {
    expect(await policy.check(raw)).toBe(stored);
    expect(() => result.parse(described(stored))).not.toThrow();
  });
});

describe('the length of a URL as stored', () => {
  const policy = new EndpointUrlPolicy([], async () => ['93.184.216.34']);

  it('refuses a URL that escaping makes longer than the limit, and keeps one that fits', async () => {
    const euro = `https://example.com/${'€'.repeat(400)}`; // 420 characters typed, 3,620 escaped
    await expect(policy.check(euro)).rejects.toMatchObject({ code: 'unsafe_url', message: expect.stringMatching('longer than 2048') });
    const fits = `https://example.com/${'a'.repeat(2048 - 20)}`;
    expect(await policy.check(fits)).toHaveLength(2048);
  });
});

describe('names and allowlisted hosts at save time', () => {
  it.each([
    ['https://localhost./hook', 'must name a public host'],
    ['https://api.localhost./hook', 'must name a public host'],
    ['https://printer.local./hook', 'must name a public host'],
    ['https://metadata.google.internal./hook', 'must name a public host'],
    ['https://intranet./hook', 'must name a public host'],
    ['https://localhost../hook', 'must name a public host'],
    ['https://a{b}.example.com/hook', 'characters no host name has'],
    ['https://a`b.example.com/hook', 'characters no host name has'],
  ])('refuses %s by its name, as it would without the final dots, or by its form', (url, problem) => {
    expect(urlProblem(url)).toMatch(problem);
  });

  it('refuses a name when any of its addresses is not public, and one that does not resolve, with one answer for both', async () => {
    const resolvingTo = (addresses: string[]) => new EndpointUrlPolicy([], async () => addresses);
    const privateAnswer = await resolvingTo(['93.184.216.34', '10.0.0.1']).check('https://hooks.example.com/x').catch((error: unknown) => error);
    expect(privateAnswer).toMatchObject({ code: 'unsafe_url', message: expect.stringMatching('does not resolve to a public address') });
    await expect(resolvingTo([]).check('https://hooks.example.com/x')).rejects.toMatchObject({ code: 'unsafe_url' });
    const failing = new EndpointUrlPolicy([], async () => {
      throw new Error('ENOTFOUND');
    });
    // The same words: whoever saves URLs learns nothing of which names exist on the service's network.
    await expect(failing.check('https://hooks.example.com/x')).rejects.toMatchObject({ code: 'unsafe_url', message: (privateAnswer as Error).message });
  });

  it('lifts only the name and address checks for an allowlisted host: https, no credentials and a host name\'s form still hold', async () => {
    const policy = new EndpointUrlPolicy(['localhost'], async () => ['127.0.0.1']);
    expect(await policy.check('https://localhost:8443/hook')).toBe('https://localhost:8443/hook');
    await expect(policy.check('http://localhost:8443/hook')).rejects.toMatchObject({ code: 'unsafe_url' });
    await expect(policy.check('https://user:pass@localhost:8443/hook')).rejects.toMatchObject({ code: 'unsafe_url', message: expect.stringMatching('credentials') });
    const odd = new EndpointUrlPolicy(['a{b}.test'], async () => ['127.0.0.1']);
    await expect(odd.check('https://a{b}.test/hook')).rejects.toMatchObject({ code: 'unsafe_url', message: expect.stringMatching('characters no host name has') });
  });

  it('matches an IPv6 allowlist entry written with or without brackets', async () => {
    for (const entry of ['::1', '[::1]']) {
      const policy = new EndpointUrlPolicy([entry]);
      expect(policy.isAllowlisted('[::1]')).toBe(true);
      expect(policy.isAllowlisted('::1')).toBe(true);
      expect(await policy.check('https://[::1]:8443/hook')).toBe('https://[::1]:8443/hook');
    }
  });
});

describe('the save-time check against DNS', () => {
  it('takes a public address as its own answer, without a lookup', async () => {
    const policy = new EndpointUrlPolicy([]);
    expect(await policy.check('https://93.184.216.34/hook')).toBe('https://93.184.216.34/hook');
    expect(await policy.check('https://[2606:4700::1111]:8443/hook')).toBe('https://[2606:4700::1111]:8443/hook');
  });
});

describe('the lookup of every outbound connection', () => {
  const resolvingTo = (addresses: string[]): ResolveAll => (_host, _options, callback) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  const lookUp = (lookup: ReturnType<typeof safeLookup>, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      lookup('hooks.example.com', { all }, (error, address) => resolve({ error, address }));
    });

  it.each([true, false])('refuses a name with one private address among public ones (all: %s), whichever would be dialled', async (all) => {
    const lookup = safeLookup({ isAllowlisted: () => false, resolve: resolvingTo(['93.184.216.34', '10.0.0.1']) });
    expect((await lookUp(lookup, all)).error).toMatchObject({ code: 'EUNSAFEADDRESS' });
    const reversed = safeLookup({ isAllowlisted: () => false, resolve: resolvingTo(['10.0.0.1', '93.184.216.34']) });
    expect((await lookUp(reversed, all)).error).toMatchObject({ code: 'EUNSAFEADDRESS' });
  });

  it('refuses an IPv4-compatible IPv6 answer, written dotted as resolvers write it', async () => {
    const lookup = safeLookup({ isAllowlisted: () => false, resolve: resolvingTo(['::8.8.8.8']) });
    expect((await lookUp(lookup, true)).error).toMatchObject({ code: 'EUNSAFEADDRESS' });
  });

  it('answers every public address with all, the first without', async () => {
    const lookup = safeLookup({ isAllowlisted: () => false, resolve: resolvingTo(['93.184.216.34', '2606:4700:4700::1111']) });
    expect(await lookUp(lookup, true)).toEqual({ error: null, address: [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }] });
    expect(await lookUp(lookup, false)).toEqual({ error: null, address: '93.184.216.34' });
  });
});
