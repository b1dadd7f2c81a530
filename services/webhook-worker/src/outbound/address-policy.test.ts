import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { rpcMethods } from '@feedback/contracts';
import { isPublicAddress, urlProblem } from './address-policy.js';
import { EndpointUrlPolicy } from './endpoint-url-policy.js';

describe('webhook address policy', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '240.0.0.1', '192.0.0.8',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::7f00:1',
    // IPv4-compatible (deprecated) forms of loopback and the metadata address, unassigned space,
    // and the 6to4 and Teredo ranges, which carry an IPv4 address of their own.
    '::7f00:1', '::127.0.0.1', '::a9fe:a9fe', '4000::1', '100::1', '2002:7f00:1::1', '2001:0:7f00:1::1',
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
  const described = (url: string) => ({ id: randomUUID(), app_id: 1, name: 'E', url, events: ['ticket.created'], created_at: new Date().toISOString(), updated_at: new Date().toISOString() });

  it.each([
    ['https://example.com/hook ', 'https://example.com/hook'],
    [' https://Example.COM:443/a b', 'https://example.com/a%20b'],
    ['https://example.com/a|b^c?q=1|2', 'https://example.com/a%7Cb%5Ec?q=1%7C2'],
    ['https://example.com/100%', 'https://example.com/100%25'],
    ['https://example.com/ok%20already', 'https://example.com/ok%20already'],
    ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
  ])('stores %j as %s, a URL every answer about the endpoint can carry', async (raw, stored) => {
    expect(await policy.check(raw)).toBe(stored);
    expect(() => result.parse(described(stored))).not.toThrow();
  });
});
