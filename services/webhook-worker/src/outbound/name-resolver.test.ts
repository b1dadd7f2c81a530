import { pbkdf2 } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import dnsPacket from 'dns-packet';
import { EndpointUrlPolicy, addressesInDns } from './endpoint-url-policy.js';
import { dnsResolveAll, resolveAllAddresses } from './name-resolver.js';
import { safeLookup } from './safe-lookup.js';

// A name server of our own on a local UDP port: it answers the names below, says NXDOMAIN for
// any other, never answers a name starting with "silent", nor an AAAA query for "aaaa-silent".
const zone: Record<string, { A?: string[]; AAAA?: string[] }> = {
  'hooks.example.com': { A: ['93.184.216.34'], AAAA: ['2606:4700:4700::1111'] },
  'v6only.example.com': { AAAA: ['2606:4700:4700::1111'] },
  'rebound.example.com': { A: ['93.184.216.34'], AAAA: ['fd00::1'] },
  'metadata.example.com': { A: ['169.254.169.254'] },
  'aaaa-silent.example.com': { A: ['93.184.216.34'] },
};
let server: Socket;
let nameServer: string;
let queriesSeen = 0;

beforeAll(async () => {
  server = createSocket('udp4');
  server.on('message', (message, from) => {
    const query = dnsPacket.decode(message);
    const question = query.questions![0]!;
    queriesSeen += 1;
    if (question.name.startsWith('silent') || (question.name.startsWith('aaaa-silent') && question.type === 'AAAA')) return;
    const records = zone[question.name];
    const type = question.type as 'A' | 'AAAA';
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      // The low four bits are the answer's code: 3 is NXDOMAIN.
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (records ? 0 : 3),
      questions: [question],
      answers: (records?.[type] ?? []).map((data) => ({ type, name: question.name, ttl: 60, data })),
    });
    server.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  nameServer = `127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(resolve));
});

const resolver = (deadlineMs = 1000) => dnsResolveAll({ servers: [nameServer], deadlineMs });

describe('the resolver of customers\' hosts', () => {
  it('answers every address of a name from DNS, IPv4 first, and one family when only it is asked for', async () => {
    expect(await resolveAllAddresses(resolver(), 'hooks.example.com')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
    expect(await resolveAllAddresses(resolver(), 'v6only.example.com')).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
    const onlyV4 = await new Promise((resolve) => resolver()('hooks.example.com', { all: true, family: 4 }, (_error, addresses) => resolve(addresses)));
    expect(onlyV4).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('fails for a name that does not exist', async () => {
    await expect(resolveAllAddresses(resolver(), 'nowhere.example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('answers an address with itself, asking nobody', async () => {
    const before = queriesSeen;
    expect(await resolveAllAddresses(resolver(), '93.184.216.34')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await resolveAllAddresses(resolver(), '2606:4700::1111')).toEqual([{ address: '2606:4700::1111', family: 6 }]);
    expect(queriesSeen).toBe(before);
  });

  it('does not wait for a family the server never answers once the other has answered', async () => {
    // A deadline far beyond the test's own time limit: only the short grace can end this lookup.
    expect(await resolveAllAddresses(resolver(600_000), 'aaaa-silent.example.com')).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('gives up on a silent name server at its deadline, whatever c-ares would still try', async () => {
    await expect(resolveAllAddresses(resolver(300), 'silent.example.com')).rejects.toMatchObject({ code: 'ETIMEOUT', message: 'no answer for silent.example.com within 300 ms' });
  });

  it('waits for a silent name server on a socket, not on one of the threads the process shares', async () => {
    // More lookups than libuv has threads (4). Through the system's lookup they would each hold
    // a thread until the resolver gave up, and work that needs one (crypto, files) would wait.
    let lookupsSettled = 0;
    const before = queriesSeen;
    // Their deadline is far longer than 8 tiny pbkdf2 calls take even on a busy machine, unless
    // those wait for threads the lookups hold.
    const lookups = Array.from({ length: 8 }, (_, n) =>
      resolveAllAddresses(resolver(2_500), `silent-${n}.example.com`).finally(() => {
        lookupsSettled += 1;
      }),
    );
    await Promise.all(Array.from({ length: 8 }, () => new Promise((resolve, reject) => pbkdf2('x', 'y', 1, 32, 'sha256', (error, key) => (error ? reject(error) : resolve(key))))));
    expect(lookupsSettled).toBe(0);
    const outcomes = await Promise.allSettled(lookups);
    expect(outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as NodeJS.ErrnoException).code)).toEqual(Array(8).fill('ETIMEOUT'));
    // Both families of each name were asked of the server (again, if c-ares tried twice).
    expect(queriesSeen - before).toBeGreaterThanOrEqual(16);
  });
});

describe('the lookup of every outbound connection, against DNS', () => {
  const refusedFor: Array<[string, string]> = [];
  const lookUp = (hostname: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) => {
      const lookup = safeLookup({ isAllowlisted: () => false, resolve: resolver(), onRefused: (host, reason) => refusedFor.push([host, reason]) });
      lookup(hostname, { all: true }, (error, addresses) => resolve({ error, addresses }));
    });

  it('answers a public name\'s addresses', async () => {
    expect(await lookUp('hooks.example.com')).toEqual({
      error: null,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    });
  });

  it('refuses a name with a private address in either family, and one that does not resolve, in the same words', async () => {
    const refusals = await Promise.all(['rebound.example.com', 'metadata.example.com', 'nowhere.example.com', 'silent.example.com'].map(lookUp));
    expect(refusals.map(({ error }) => [error?.code, error?.message])).toEqual([
      ['EUNSAFEADDRESS', 'refused: rebound.example.com does not resolve to a public address'],
      ['EUNSAFEADDRESS', 'refused: metadata.example.com does not resolve to a public address'],
      ['EUNSAFEADDRESS', 'refused: nowhere.example.com does not resolve to a public address'],
      ['EUNSAFEADDRESS', 'refused: silent.example.com does not resolve to a public address'],
    ]);
    // What the history does not show, the operators are told.
    expect(refusedFor.sort()).toEqual([
      ['metadata.example.com', 'not_public'],
      ['nowhere.example.com', 'ENOTFOUND'],
      ['rebound.example.com', 'not_public'],
      ['silent.example.com', 'ETIMEOUT'],
    ]);
  });

  it('asks the system for a host on the allowlist of local test receivers, which no DNS knows', async () => {
    const answer = await new Promise<{ error: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) => {
      safeLookup({ isAllowlisted: (host) => host === 'localhost', resolve: resolver() })('localhost', { all: true }, (error, addresses) => resolve({ error, addresses }));
    });
    expect(answer.error).toBeNull();
    expect(answer.addresses).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]));
  });
});

describe('the save-time check of an endpoint URL, against DNS', () => {
  it('saves a public name, and refuses names with a private address in either family, or none, in the same words', async () => {
    const refusedFor: Array<[string, string]> = [];
    const policy = new EndpointUrlPolicy([], addressesInDns(resolver()), (host, reason) => refusedFor.push([host, reason]));
    expect(await policy.check('https://hooks.example.com/hook')).toBe('https://hooks.example.com/hook');
    const refusals = await Promise.all(
      ['rebound.example.com', 'metadata.example.com', 'nowhere.example.com'].map((host) => policy.check(`https://${host}/hook`).catch((error: unknown) => error)),
    );
    expect(refusals.map((error) => [(error as { code: string }).code, (error as Error).message.replace(/rebound|metadata|nowhere/, '<name>')])).toEqual(
      Array(3).fill(['unsafe_url', expect.stringContaining('The host <name>.example.com does not resolve to a public address')]),
    );
    expect(refusedFor.sort()).toEqual([
      ['metadata.example.com', 'not_public'],
      ['nowhere.example.com', 'ENOTFOUND'],
      ['rebound.example.com', 'not_public'],
    ]);
  });
});
