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
