import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { FairShare, hostOf } from './fair-share.js';
import type { Acquired } from './fair-share.js';

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

  it("tells how many more attempts a host may have in flight, every team's together", () => {
    const share = new FairShare({ concurrency: 64, perHost: 2 });
    expect(share.placesLeft('https://busy.example/a')).toBe(2);
    const first = taken(share.take('team-a', 'https://busy.example/a'));
    taken(share.take('team-b', 'https://busy.example/b'));
    expect(share.placesLeft('https://busy.example/c')).toBe(0);
    first();
    expect(share.placesLeft('https://busy.example/c')).toBe(1);
  });
});

const placed = (acquired: Acquired): (() => void) => {
  if ('refused' in acquired) throw new Error(`refused: ${acquired.refused}`);
  expect(acquired.waitedMs).toBeGreaterThanOrEqual(0);
  return acquired.place;
};

describe('FairShare, waiting for a place', () => {
  it("lets an attempt past its fast host's cap wait, and gives it the first place given back", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    share.noteAnswer('https://fast.example/a', 5, true);
    const first = taken(share.take('team-a', 'https://fast.example/a'));
    const waiting = share.acquire('team-b', 'https://fast.example/b');
    first();
    const second = placed(await waiting);
    expect(share.take('team-c', 'https://fast.example/c')).toBe('host');
    second();
    taken(share.take('team-c', 'https://fast.example/c'));
  });

  it('gives one place back to one waiter, in order, the next waiting on', async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    share.noteAnswer('https://fast.example/a', 5, true);
    const first = taken(share.take('team-a', 'https://fast.example/a'));
    const second = share.acquire('team-b', 'https://fast.example/b');
    let thirdPlaced = false;
    const third = share.acquire('team-c', 'https://fast.example/c').then((acquired) => {
      thirdPlaced = true;
      return acquired;
    });
    first();
    const secondPlace = placed(await second);
    await new Promise((resolve) => setImmediate(resolve));
    expect(thirdPlaced).toBe(false);
    secondPlace();
    placed(await third);
    share.stop();
  });

  it('says an attempt with a place at once did not wait', async () => {
    const share = new FairShare({ concurrency: 64 });
    const acquired = await share.acquire('team-a', 'https://fast.example/a');
    expect('place' in acquired && acquired.waitedMs).toBe(0);
  });

  it('sends the attempt round a throttle queue once the short wait is over, counted then', async () => {
    const registry = new Registry();
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 20, registry });
    taken(share.take('team-a', 'https://fast.example/a'));
    await expect(share.acquire('team-b', 'https://fast.example/b')).resolves.toEqual({ refused: 'host' });
    const metrics = await registry.metrics();
    expect(metrics).toContain('feedback_webhook_fair_share_refusals_total{reason="host"} 1');
    expect(metrics).toContain('feedback_webhook_fair_share_waits_total{outcome="refused"} 1');
  });

  it("never waits on a slow host, and turns away the waiters of a host that turns slow", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    taken(share.take('team-a', 'https://fast.example/a'));
    const waiting = share.acquire('team-b', 'https://fast.example/b');
    share.noteAnswer('https://fast.example/a', 1500, true);
    await expect(waiting).resolves.toEqual({ refused: 'host' });
    await expect(share.acquire('team-b', 'https://fast.example/b')).resolves.toEqual({ refused: 'host' });
  });

  it('lets only as many wait for a host as its answer time allows within the short wait', async () => {
    const share = new FairShare({ concurrency: 64, perHost: 2, shortWaitMs: 250 });
    // Answers in 200 ms: one round of its two places fits in 250 ms, two rounds do not.
    share.noteAnswer('https://steady.example/a', 200, true);
    taken(share.take('team-a', 'https://steady.example/a'));
    taken(share.take('team-a', 'https://steady.example/a'));
    const waiting = [share.acquire('team-b', 'https://steady.example/b'), share.acquire('team-c', 'https://steady.example/c')];
    await expect(share.acquire('team-d', 'https://steady.example/d')).resolves.toEqual({ refused: 'host' });
    // A host that answers in 900 ms: nobody waits for it.
    share.noteAnswer('https://sluggish.example/a', 900, true);
    taken(share.take('team-a', 'https://sluggish.example/a'));
    taken(share.take('team-a', 'https://sluggish.example/a'));
    await expect(share.acquire('team-b', 'https://sluggish.example/b')).resolves.toEqual({ refused: 'host' });
    share.stop();
    await Promise.all(waiting);
  });

  it("lets a team have only the waiting its places can serve within the short wait, so one team's backlog cannot fill the line", async () => {
    const share = new FairShare({ concurrency: 4, perHost: 100, shortWaitMs: 250 });
    // Hosts that answer in 200 ms: one round of the team's two places fits in 250 ms, two do not.
    for (const host of ['a', 'b', 'c', 'd']) share.noteAnswer(`https://${host}.example/`, 200, true);
    taken(share.take('busy', 'https://a.example/'));
    taken(share.take('busy', 'https://b.example/'));
    const waiting = [share.acquire('busy', 'https://c.example/'), share.acquire('busy', 'https://d.example/')];
    await expect(share.acquire('busy', 'https://d.example/')).resolves.toEqual({ refused: 'team' });
    share.stop();
    await expect(Promise.all(waiting)).resolves.toEqual([{ refused: 'host' }, { refused: 'host' }]);
  });

  it('refuses at once, whatever the team, only a host at its cap with no room in its line; counted as a refusal', async () => {
    const registry = new Registry();
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 250, registry });
    share.noteAnswer('https://busy.example/a', 200, true);
    expect(share.refusesAtOnce('busy.example')).toBe(false);
    const place = taken(share.take('team-a', 'https://busy.example/a'));
    // One round of its one place fits in the short wait: one attempt may wait for it.
    expect(share.refusesAtOnce('busy.example')).toBe(false);
    const waiting = share.acquire('team-b', 'https://busy.example/b');
    expect(share.refusesAtOnce('busy.example')).toBe(true);
    // Another host is another destination.
    expect(share.refusesAtOnce('other.example')).toBe(false);
    expect(await registry.metrics()).toContain('feedback_webhook_fair_share_refusals_total{reason="host"} 1');
    place();
    placed(await waiting);
    // A slow host has no line: at its cap, it refuses at once.
    share.noteAnswer('https://busy.example/a', 1500, true);
    expect(share.refusesAtOnce('busy.example')).toBe(true);
  });

  it('tells how many seconds of its places the attempts refused at a host lately would take, the count fading over a second', () => {
    let now = 0;
    const share = new FairShare({ concurrency: 64, perHost: 2, shortWaitMs: 0, now: () => now });
    // Unknown before it answers: nothing to pace by.
    expect(share.refusedSeconds('busy.example')).toBeUndefined();
    share.noteAnswer('https://busy.example/a', 100, true);
    taken(share.take('team-a', 'https://busy.example/a'));
    taken(share.take('team-a', 'https://busy.example/a'));
    for (let n = 0; n < 100; n += 1) expect(share.take('team-b', 'https://busy.example/b')).toBe('host');
    // Two places answering in 100 ms take 20 attempts a second: 100 refused are 5 seconds of them.
    expect(share.refusedSeconds('busy.example')).toBeCloseTo(5, 5);
    now += 1000;
    expect(share.refusedSeconds('busy.example')).toBeCloseTo(5 / Math.E, 5);
    // A slow host's backlog waits the longest anyway.
    share.noteAnswer('https://busy.example/a', 1500, true);
    expect(share.refusedSeconds('busy.example')).toBeUndefined();
  });

  it("spaces the returns of attempts refused at a busy host at the pace its places take them, after its line, none past the rung's wait", () => {
    let now = 0;
    const share = new FairShare({ concurrency: 64, perHost: 2, shortWaitMs: 0, now: () => now });
    // Unknown before it answers: the rung's own wait.
    expect(share.bookReturn('busy.example', 1000)).toBeUndefined();
    share.noteAnswer('https://busy.example/a', 100, true);
    taken(share.take('team-a', 'https://busy.example/a'));
    taken(share.take('team-a', 'https://busy.example/a'));
    // Two places answering in 100 ms take one attempt each 50 ms. The two in flight end at 100 ms;
    // the refused come back from then on, one a turn.
    const waits = Array.from({ length: 20 }, () => share.bookReturn('busy.example', 1000));
    expect(waits.slice(0, 3)).toEqual([150, 200, 250]);
    expect(waits[16]).toBe(950);
    // Past the rung's wait, the rung's wait: those come back together, as before.
    expect(waits.slice(17)).toEqual([1000, 1000, 1000]);
    // As time passes, the schedule takes returns again, after those already due (at 950 ms).
    now += 500;
    expect(share.bookReturn('busy.example', 1000)).toBe(1000 - 500);
    // A slow host's backlog waits the longest anyway.
    share.noteAnswer('https://busy.example/a', 1500, true);
    expect(share.bookReturn('busy.example', 1000)).toBeUndefined();
  });

  it("books a host's returns after the attempts waiting in its line too, and never sooner than the short wait", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 150, now: () => 0 });
    share.noteAnswer('https://busy.example/a', 40, true);
    const place = taken(share.take('team-a', 'https://busy.example/a'));
    const waiting = share.acquire('team-a', 'https://busy.example/a');
    // One in flight and one waiting, 40 ms a turn: due after the third turn, held to the short wait.
    expect(share.bookReturn('busy.example', 1000)).toBe(150);
    expect(share.bookReturn('busy.example', 1000)).toBe(160);
    place();
    expect('place' in (await waiting)).toBe(true);
    // A host answering at once would bring its refusals straight back: the short wait holds them.
    const fast = new FairShare({ concurrency: 64, perHost: 16, shortWaitMs: 250, now: () => 0 });
    fast.noteAnswer('https://fast.example/a', 0, true);
    expect(fast.bookReturn('fast.example', 1000)).toBe(250);
  });

  it('tells the next few waiters of a host, once each, when one of its places comes back', async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    share.noteAnswer('https://busy.example/a', 5, true);
    const first = taken(share.take('team-a', 'https://busy.example/a'));
    const told: number[] = [];
    const waiting = Array.from({ length: 6 }, (_, n) => share.acquire('team-a', 'https://busy.example/a', () => told.push(n)));
    expect(told).toEqual([]);
    first();
    // The first waiter has the place; the next few after it are told.
    const second = placed(await waiting[0]!);
    expect(told).toEqual([1, 2, 3, 4]);
    second();
    placed(await waiting[1]!);
    expect(told).toEqual([1, 2, 3, 4, 5]);
    share.stop();
    await Promise.all(waiting);
  });

  it("gives a waiter whose host is free its place though an earlier waiter's host is still full", async () => {
    const share = new FairShare({ concurrency: 64, perHost: 1, shortWaitMs: 60_000 });
    taken(share.take('team-a', 'https://one.example/a'));
    const other = taken(share.take('team-a', 'https://two.example/a'));
    const first = share.acquire('team-b', 'https://one.example/b');
    const second = share.acquire('team-b', 'https://two.example/b');
    other();
    placed(await second);
    share.stop();
    await expect(first).resolves.toEqual({ refused: 'host' });
  });

  it("lets an attempt past its team's rate wait for the team's next token", async () => {
    const share = new FairShare({ concurrency: 1000, perHost: 1000, perTeam: 1000, teamRatePerSecond: 50, shortWaitMs: 60_000 });
    for (let n = 0; n < 50; n += 1) taken(share.take('team', `https://h${n}.example/`))();
    expect(share.take('team', 'https://h.example/')).toBe('rate');
    placed(await share.acquire('team', 'https://h.example/'));
    share.stop();
  });
});
