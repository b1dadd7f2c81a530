import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { FairShare, hostOf } from './fair-share.js';

const taken = (place: (() => void) | string): (() => void) => {
  if (typeof place === 'string') throw new Error(`refused: ${place}`);
  return place;
};

describe('FairShare', () => {
  it("caps the attempts in flight to one host across every team, and gives a place back when its request is over", () => {
    const share = new FairShare({ concurrency: 64, perHost: 2 });
    const first = taken(share.take('team-a', 'https://slow.example/a'));
    taken(share.take('team-b', 'https://slow.example/b'));
    expect(share.take('team-c', 'https://SLOW.example/c')).toBe('host');
    // Another host, or another port of it, is another destination.
    taken(share.take('team-c', 'https://slow.example:8443/c'));
    first();
    first();
    taken(share.take('team-c', 'https://slow.example/c'));
    expect(share.take('team-c', 'https://slow.example/d')).toBe('host');
  });

  it("gives a team alone half the worker, and two teams at once half each: one team's thousand endpoints leave the others room", () => {
    const share = new FairShare({ concurrency: 8, perHost: 100 });
    for (let n = 0; n < 4; n += 1) taken(share.take('busy', `https://host-${n}.example/`));
    expect(share.take('busy', 'https://host-9.example/')).toBe('team');
    for (let n = 0; n < 4; n += 1) taken(share.take('quiet', `https://other-${n}.example/`));
    expect(share.take('quiet', 'https://other-9.example/')).toBe('team');
    // Four teams at once: each gets two.
    const third = new FairShare({ concurrency: 8, perHost: 100 });
    for (const team of ['a', 'b', 'c']) taken(third.take(team, `https://${team}.example/`));
    expect(third.shareOf('d')).toBe(2);
  });

  it("lets a team start at most its rate of attempts a second, then again as the second passes", () => {
    let now = 0;
    const registry = new Registry();
    const share = new FairShare({ concurrency: 1000, perHost: 1000, perTeam: 1000, teamRatePerSecond: 3, now: () => now, registry });
    for (let n = 0; n < 3; n += 1) taken(share.take('team', `https://h${n}.example/`))();
    expect(share.take('team', 'https://h.example/')).toBe('rate');
    expect(typeof share.take('other', 'https://h.example/')).toBe('function');
    now += 400;
    taken(share.take('team', 'https://h.example/'));
    expect(share.take('team', 'https://h.example/')).toBe('rate');
    return registry.metrics().then((text) => expect(text).toContain('feedback_webhook_fair_share_refusals_total{reason="rate"} 2'));
  });

  it('names a destination by host and port', () => {
    expect(hostOf('https://Hooks.Example.com/a?b')).toBe('hooks.example.com');
    expect(hostOf('https://hooks.example.com:8443/a')).toBe('hooks.example.com:8443');
  });

  it('takes a host with a trailing dot for the same host, and each listen session for a destination of its own', () => {
    expect(hostOf('https://hooks.example.com./a')).toBe('hooks.example.com');
    expect(hostOf('https://hooks.example.com.:8443/a')).toBe('hooks.example.com:8443');
    expect(hostOf('listen:api.listen.1')).not.toBe(hostOf('listen:api.listen.2'));
  });
});

describe('FairShare, a slow host', () => {
  it('is slow from an answer over a second or a failure, until it answers well', () => {
    const share = new FairShare({ concurrency: 64 });
    share.noteAnswer('https://slow.example/a', 1200, true);
    expect(share.isSlow('https://slow.example/b')).toBe(true);
    share.noteAnswer('https://slow.example/a', 20, true);
    expect(share.isSlow('https://slow.example/b')).toBe(false);
    share.noteAnswer('https://slow.example/a', 20, false);
    expect(share.isSlow('https://slow.example/b')).toBe(true);
  });

  it('is full only while slow and at its cap: then a first attempt may wait without being tried', () => {
    const share = new FairShare({ concurrency: 64, perHost: 1 });
    const place = taken(share.take('team-a', 'https://slow.example/a'));
    expect(share.isFullAndSlow('https://slow.example/b')).toBe(false);
    share.noteAnswer('https://slow.example/a', 1200, true);
    expect(share.isFullAndSlow('https://slow.example/b')).toBe(true);
    place();
    expect(share.isFullAndSlow('https://slow.example/b')).toBe(false);
  });
});

describe('FairShare, waiting for a place', () => {
  it("lets an attempt past its fast host's cap wait, and gives it the first place given back", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    const first = taken(share.take('team-a', 'https://fast.example/a'));
    const waiting = share.acquire('team-b', 'https://fast.example/b');
    first();
    const second = taken(await waiting);
    expect(share.take('team-c', 'https://fast.example/c')).toBe('host');
    second();
    taken(share.take('team-c', 'https://fast.example/c'));
  });

  it('sends the attempt round a throttle queue once the short wait is over, counted then', async () => {
    const registry = new Registry();
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 20, registry });
    taken(share.take('team-a', 'https://fast.example/a'));
    await expect(share.acquire('team-b', 'https://fast.example/b')).resolves.toBe('host');
    expect(await registry.metrics()).toContain('feedback_webhook_fair_share_refusals_total{reason="host"} 1');
  });

  it("never waits on a slow host, and turns away the waiters of a host that turns slow", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    taken(share.take('team-a', 'https://fast.example/a'));
    const waiting = share.acquire('team-b', 'https://fast.example/b');
    share.noteAnswer('https://fast.example/a', 1500, true);
    await expect(waiting).resolves.toBe('host');
    await expect(share.acquire('team-b', 'https://fast.example/b')).resolves.toBe('host');
  });

  it("gives a waiter whose host is free its place though an earlier waiter's host is still full", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    taken(share.take('team-a', 'https://one.example/a'));
    const other = taken(share.take('team-a', 'https://two.example/a'));
    const first = share.acquire('team-b', 'https://one.example/b');
    const second = share.acquire('team-b', 'https://two.example/b');
    other();
    taken(await second);
    share.stop();
    await expect(first).resolves.toBe('host');
  });

  it("lets an attempt past its team's rate wait for the team's next token", async () => {
    const share = new FairShare({ concurrency: 1000, perHost: 1000, perTeam: 1000, teamRatePerSecond: 50, shortWaitMs: 60_000 });
    for (let n = 0; n < 50; n += 1) taken(share.take('team', `https://h${n}.example/`))();
    expect(share.take('team', 'https://h.example/')).toBe('rate');
    taken(await share.acquire('team', 'https://h.example/'));
  });
});
