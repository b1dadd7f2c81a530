import type pg from 'pg';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { noteMostRecent } from './recent-notes.js';
import { statementBatches } from '@feedback/database';
import { LISTEN_URL_PREFIX } from '../outbound/listen-relay.js';

export interface FairShareOptions {
  /** The worker's slots (DELIVERY_PREFETCH): a team's fair share is a part of them. */
  concurrency: number;
  /** Attempts in flight to one destination host from this worker, whatever team they are for. Default: 16. */
  perHost?: number;
  /** Most attempts one team may have in flight in this worker, even alone. Default: half of `concurrency`. */
  perTeam?: number;
  /** Attempts one team may start a second in this worker; the rest wait. Default: 4000. */
  teamRatePerSecond?: number;
  /**
   * How long an attempt refused here may expect to wait in this worker for a place, judged by its
   * host's recent answers, before it goes round a throttle queue instead. Default: 250.
   */
  shortWaitMs?: number;
  /** Where refusals and waits are counted. */
  registry?: Registry;
  /** Milliseconds, for the rate. Default: performance.now. */
  now?: () => number;
}

export type FairShareRefusal = 'host' | 'team' | 'rate';

/** A team's tokens: attempts it may still start this second. */
interface Bucket {
  tokens: number;
  at: number;
}

/** A place given back when its attempt's request is over. */
export type FairSharePlace = () => void;

/** What `acquire` gives: a place, and how long the attempt waited for it (0: not at all); or the refusal. */
export type Acquired = { place: FairSharePlace; waitedMs: number } | { refused: FairShareRefusal };

/** An attempt waiting here for a place. */
interface Waiter {
  teamId: string;
  host: string;
  since: number;
  resolve: (acquired: Acquired) => void;
  timer: NodeJS.Timeout;
  /** Told once, when it is among the next few of its host's line (NEXT_IN_LINE). */
  next?: () => void;
  toldNext?: boolean;
}

/** Most waiters of a host told they are next, each time one of its places comes back. */
const NEXT_IN_LINE = 4;

/**
 * Waiters told they are next are those whose place is expected within this long, by the host's
 * places and typical answer time: a read made ahead must be this fresh to serve (attempt-maker.ts).
 */
const NEXT_WITHIN_MS = 50;

/**
 * Keeps one tenant from taking a worker from the others. An attempt may start only while:
 * - its destination host has fewer than `perHost` attempts in flight here, from every team
 *   together, so that a thousand endpoints at one host (a slow one, or a victim the platform's
 *   traffic is aimed at) hold a bounded part of the worker;
 * - its team has fewer than its fair share in flight: the worker's slots divided among the teams
 *   with attempts in flight, at most `perTeam`, so that a team's thousand endpoints at a thousand
 *   hosts leave room for the others;
 * - its team has started fewer than `teamRatePerSecond` attempts this second.
 * An attempt refused while its host answers quickly waits here briefly (`acquire`): a burst to a
 * fast receiver goes at the receiver's pace. One refused otherwise, or still refused after the
 * short wait, is not dropped: its caller sends it round a throttle queue, and it comes back.
 */
export class FairShare {
  private readonly hosts = new Map<string, number>();
  private readonly teams = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  /** Hosts whose latest answer here failed or took over a second, the latest noted last. */
  private readonly slowHosts = new Map<string, true>();
  /** A host's typical answer time here, in ms, while it answers well (as EndpointSlots keeps an endpoint's). */
  private readonly typicalMs = new Map<string, number>();
  /** Attempts refused at each host for its cap: a rate that decays over about a second, and when it was last noted. */
  private readonly hostRefusals = new Map<string, { rate: number; at: number }>();
  /** When the latest return booked for each busy host is due (bookReturn). */
  private readonly returnsDue = new Map<string, number>();
  private readonly perHost: number;
  private readonly perTeam: number;
  private readonly rate: number;
  private readonly shortWaitMs: number;
  private readonly now: () => number;
  private readonly waiters: Waiter[] = [];
  /** Attempts waiting, by host and by team: each may have only so many. */
  private readonly waitingForHost = new Map<string, number>();
  private readonly waitingOfTeam = new Map<string, number>();
  /** Set while a waiter may be held by its team's rate: the tokens' return is the only event then. */
  private rateTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly refusals: Counter<'reason'> | undefined;
  private readonly waits: Counter<'outcome'> | undefined;

  constructor(private readonly options: FairShareOptions) {
    this.perHost = options.perHost ?? 16;
    this.perTeam = options.perTeam ?? Math.max(1, Math.floor(options.concurrency / 2));
    this.rate = options.teamRatePerSecond ?? 4000;
    this.shortWaitMs = options.shortWaitMs ?? 250;
    this.now = options.now ?? (() => performance.now());
    this.refusals =
      options.registry &&
      new Counter({
        name: 'feedback_webhook_fair_share_refusals_total',
        help: "Attempts sent round a throttle queue to keep a tenant's share: their host was at its cap (host), their team at its share (team) or rate (rate)",
        labelNames: ['reason'],
        registers: [options.registry],
      });
    this.waits =
      options.registry &&
      new Counter({
        name: 'feedback_webhook_fair_share_waits_total',
        help: 'Attempts past a share that waited in the worker for a place: they got one (placed), or went round a throttle queue after all (refused)',
        labelNames: ['outcome'],
        registers: [options.registry],
      });
  }

  /** A team's share now: the worker's slots divided among the teams with attempts in flight, this one counted. */
  shareOf(teamId: string): number {
    const busyTeams = this.teams.size + (this.teams.has(teamId) ? 0 : 1);
    return Math.max(1, Math.min(this.perTeam, Math.floor(this.options.concurrency / busyTeams)));
  }

  /**
   * Takes a place for an attempt of `teamId` to `url`, counted at once: answers the function that
   * gives it back when the attempt's request is over, or why it may not start now.
   */
  take(teamId: string, url: string): FairSharePlace | FairShareRefusal {
    const host = hostOf(url);
    const refusal = this.refusalFor(teamId, host);
    return refusal ? this.refused(refusal, host) : this.placeFor(teamId, host);
  }

  /**
   * As `take`, but an attempt refused may wait here for a place, at most `shortWaitMs`, when its
   * host's recent answers say the wait will be short. Each host and each team has only so many
   * waiting: the rounds of its line, each of the host's typical answer time, fit in `shortWaitMs`.
   * So a host that answers in most of a second, or one team's backlog at slowish hosts, never fills
   * the line for the others: their attempts go round a throttle queue at once. A waiter's `next`
   * is told when it is among the next few of its host's line, its place most likely moments away.
   */
  acquire(teamId: string, url: string, next?: () => void): Promise<Acquired> {
    const host = hostOf(url);
    const refusal = this.refusalFor(teamId, host);
    if (!refusal) return Promise.resolve({ place: this.placeFor(teamId, host), waitedMs: 0 });
    if (!this.mayWait(teamId, host)) return Promise.resolve({ refused: this.refused(refusal, host) });
    return new Promise((resolve) => {
      const waiter: Waiter = {
        teamId,
        host,
        since: performance.now(),
        resolve,
        next,
        timer: setTimeout(() => {
          this.removeWaiter(waiter);
          const last = this.refusalFor(teamId, host);
          this.waits?.inc({ outcome: last ? 'refused' : 'placed' });
          resolve(last ? { refused: this.refused(last, host) } : { place: this.placeFor(teamId, host), waitedMs: this.shortWaitMs });
        }, this.shortWaitMs),
      };
      this.waiters.push(waiter);
      increment(this.waitingForHost, host);
      increment(this.waitingOfTeam, teamId);
      if (refusal === 'rate') this.retryWhenTokensReturn();
    });
  }

  /** For shutdown: every attempt waiting here goes round a throttle queue now (not counted as a refusal). */
  stop(): void {
    this.stopping = true;
    clearTimeout(this.rateTimer);
    this.rateTimer = undefined;
    for (const waiter of [...this.waiters]) {
      this.removeWaiter(waiter);
      waiter.resolve({ refused: 'host' });
    }
  }

  /**
   * Whether a refused attempt may wait: the rounds its host's line and its team's line take, each
   * round as long as the host's typical answer, fit in the short wait.
   */
  private mayWait(teamId: string, host: string): boolean {
    if (!this.hostLineHasRoom(host)) return false;
    const rounds = Math.ceil(((this.waitingOfTeam.get(teamId) ?? 0) + 1) / this.shareOf(teamId));
    return rounds * this.typicalAnswerMs(host) <= this.shortWaitMs;
  }

  /** Whether one more attempt may wait for this host: it answers well, and its line's rounds fit in the short wait. */
  private hostLineHasRoom(host: string): boolean {
    if (this.stopping || this.slowHosts.has(host)) return false;
    const rounds = Math.ceil(((this.waitingForHost.get(host) ?? 0) + 1) / this.perHost);
    return rounds * this.typicalAnswerMs(host) <= this.shortWaitMs;
  }

  /** The host's typical answer time here; unknown (nothing answered here yet), one round of waiting, no more. */
  private typicalAnswerMs(host: string): number {
    return this.typicalMs.get(host) ?? this.shortWaitMs;
  }

  /**
   * Whether every attempt at `host`, a destination as hostOf names it, would be refused now,
   * whatever its team, with no short wait: the host has its share in flight here and no room in
   * its line. Counted as a refusal when so. An attempt that waited for its host asks this before
   * its delivery is read (deliver.ts), so a backlog going round a busy host costs no read.
   */
  refusesAtOnce(host: string): boolean {
    if ((this.hosts.get(host) ?? 0) < this.perHost || this.hostLineHasRoom(host)) return false;
    this.refused('host', host);
    return true;
  }

  private refused(refusal: FairShareRefusal, host: string): FairShareRefusal {
    this.refusals?.inc({ reason: refusal });
    if (refusal === 'host') {
      const now = this.now();
      const last = this.hostRefusals.get(host);
      noteMostRecent(this.hostRefusals, host, { rate: 1 + (last ? decayed(last.rate, now - last.at) : 0), at: now });
    }
    return refusal;
  }

  /**
   * The attempts refused at a host in about the last second, in seconds of its places here: the
   * refusals over what it takes here a second, its places over its typical answer time. While its
   * backlog keeps the 1-second wait, that is about the backlog's length; once paced, the returns'.
   * Undefined while its answer time is unknown, or while it is slow (such a backlog waits the
   * longest anyway). A return spaced on the first rung (bookReturn) may be refused more than once
   * a second, and counted each time.
   */
  refusedSeconds(host: string): number | undefined {
    const typicalMs = this.typicalMs.get(host);
    const refusals = this.hostRefusals.get(host);
    if (typicalMs === undefined || refusals === undefined || this.slowHosts.has(host)) return undefined;
    const takenPerSecond = (this.perHost * 1000) / Math.max(1, typicalMs);
    return decayed(refusals.rate, this.now() - refusals.at) / takenPerSecond;
  }

  /**
   * Books the return of an attempt refused at its busy host, and answers how long it should wait
   * on the first rung: at most `longestMs`, the rung's own wait. Returns are spaced at the pace the
   * host's places take them, after its line. A burst's refusals then come back over the rung's
   * wait, not all at its end, and the places stay busy between them. Past a rung's worth,
   * `longestMs`, booking nothing. Never less than the short wait: a place due sooner would have
   * been waited for here, and a fast host's refusals must not go round the broker in a loop.
   * Undefined while the host's answer time is unknown or it is slow.
   */
  bookReturn(host: string, longestMs: number): number | undefined {
    const typicalMs = this.typicalMs.get(host);
    if (typicalMs === undefined || this.slowHosts.has(host)) return undefined;
    const now = this.now();
    const turnMs = Math.max(1, typicalMs) / this.perHost;
    const lineEnds = now + ((this.waitingForHost.get(host) ?? 0) + (this.hosts.get(host) ?? 0)) * turnMs;
    const due = Math.max(this.returnsDue.get(host) ?? 0, lineEnds) + turnMs;
    if (due - now >= longestMs) return longestMs;
    noteMostRecent(this.returnsDue, host, due);
    return Math.min(longestMs, Math.max(this.shortWaitMs, due - now));
  }

  /** Counts an attempt in flight for its host and team; answers the function that gives it back. */
  private placeFor(teamId: string, host: string): FairSharePlace {
    increment(this.hosts, host);
    increment(this.teams, teamId);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      decrement(this.hosts, host);
      decrement(this.teams, teamId);
      // A team gone from the worker raises every other team's share: any waiter may go now.
      // Otherwise only the waiters for this host, or of this team, can.
      this.grantWaiters(this.teams.has(teamId) ? { host, teamId } : undefined);
      this.tellNext(host);
    };
  }

  /**
   * Gives places to the waiters that may take one now, oldest first; the others keep waiting.
   * After one attempt's place came back (`freed`), only its host's and its team's waiters may go,
   * and at most one of each: the scan ends once both places are taken again.
   */
  private grantWaiters(freed?: { host: string; teamId: string }): void {
    if (this.waiters.length === 0) return;
    let hostPlace = freed !== undefined;
    let teamPlace = freed !== undefined;
    let blockedByRate = false;
    for (let n = 0; n < this.waiters.length; ) {
      const waiter = this.waiters[n]!;
      if (freed && !(hostPlace && waiter.host === freed.host) && !(teamPlace && waiter.teamId === freed.teamId)) {
        n += 1;
        continue;
      }
      const refusal = this.refusalFor(waiter.teamId, waiter.host);
      if (refusal) {
        blockedByRate ||= refusal === 'rate';
        n += 1;
        continue;
      }
      this.removeWaiter(waiter);
      this.waits?.inc({ outcome: 'placed' });
      waiter.resolve({ place: this.placeFor(waiter.teamId, waiter.host), waitedMs: performance.now() - waiter.since });
      if (!freed) continue;
      if (waiter.host === freed.host) hostPlace = false;
      if (waiter.teamId === freed.teamId) teamPlace = false;
      if (!hostPlace && !teamPlace) break;
    }
    if (blockedByRate) this.retryWhenTokensReturn();
  }

  /** Tells the next few waiters of a host, once each, that their place is near. */
  private tellNext(host: string): void {
    const waiting = this.waitingForHost.get(host) ?? 0;
    if (waiting === 0) return;
    const withinMs = Math.floor((this.perHost * NEXT_WITHIN_MS) / Math.max(1, this.typicalAnswerMs(host)));
    const next = Math.min(waiting, NEXT_IN_LINE, Math.max(1, withinMs));
    let told = 0;
    for (const waiter of this.waiters) {
      if (waiter.host !== host) continue;
      if (!waiter.toldNext) {
        waiter.toldNext = true;
        try {
          waiter.next?.();
        } catch {
          // Only a hint: the attempt reads at its turn instead.
        }
      }
      told += 1;
      if (told >= next) return;
    }
  }

  /** Tries the waiters again once a team's next token is due: no place coming back says so. */
  private retryWhenTokensReturn(): void {
    if (this.rateTimer || this.stopping) return;
    this.rateTimer = setTimeout(() => {
      this.rateTimer = undefined;
      this.grantWaiters();
    }, Math.max(1, Math.ceil(1000 / this.rate)));
  }

  /** Takes a waiter out of the line (its timer cleared), before it is resolved. */
  private removeWaiter(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    this.waiters.splice(at, 1);
    clearTimeout(waiter.timer);
    decrement(this.waitingForHost, waiter.host);
    decrement(this.waitingOfTeam, waiter.teamId);
  }

  /**
   * Notes how a host answered: failed, or slower than a second, marks it slow until it answers
   * well, and its waiters go round a throttle queue rather than wait on it. A good answer moves
   * its typical answer time a fifth of the way towards this one.
   */
  noteAnswer(url: string, durationMs: number, delivered: boolean): void {
    const host = hostOf(url);
    if (delivered && durationMs <= 1000) {
      this.slowHosts.delete(host);
      const typical = this.typicalMs.get(host);
      noteMostRecent(this.typicalMs, host, typical === undefined ? durationMs : 0.8 * typical + 0.2 * durationMs);
      return;
    }
    this.typicalMs.delete(host);
    noteMostRecent(this.slowHosts, host, true);
    for (const waiter of this.waiters.filter((candidate) => candidate.host === host)) {
      this.removeWaiter(waiter);
      this.waits?.inc({ outcome: 'refused' });
      waiter.resolve({ refused: this.refused('host', host) });
    }
  }

  /** Whether this URL's host is slow and has its share in flight here: an attempt for it now would be refused. */
  isFullAndSlow(url: string): boolean {
    const host = hostOf(url);
    return this.slowHosts.has(host) && (this.hosts.get(host) ?? 0) >= this.perHost;
  }

  /** How many attempts wait here for a place at this URL's host. */
  waitingAt(url: string): number {
    return this.waitingForHost.get(hostOf(url)) ?? 0;
  }

  /** How many more attempts this URL's host may have in flight here now. */
  placesLeft(url: string): number {
    return Math.max(0, this.perHost - (this.hosts.get(hostOf(url)) ?? 0));
  }

  /** Whether this URL's host answered its latest attempt here slowly or not at all. */
  isSlow(url: string): boolean {
    return this.isSlowHost(hostOf(url));
  }

  /** As isSlow, for a destination as hostOf names it. */
  isSlowHost(host: string): boolean {
    return this.slowHosts.has(host);
  }

  /** Why an attempt may not start now; undefined when it may, its team's token then spent. */
  private refusalFor(teamId: string, host: string): FairShareRefusal | undefined {
    if ((this.hosts.get(host) ?? 0) >= this.perHost) return 'host';
    if ((this.teams.get(teamId) ?? 0) >= this.shareOf(teamId)) return 'team';
    const now = this.now();
    const bucket = this.buckets.get(teamId) ?? { tokens: this.rate, at: now };
    bucket.tokens = Math.min(this.rate, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    noteMostRecent(this.buckets, teamId, bucket);
    if (bucket.tokens < 1) return 'rate';
    bucket.tokens -= 1;
    return undefined;
  }
}

/** A rate counted `elapsedMs` ago, decayed by e for each second since. */
function decayed(rate: number, elapsedMs: number): number {
  return rate * Math.exp(-Math.max(0, elapsedMs) / 1000);
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Only keys with a count are kept. */
function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** The destination an attempt's URL names: host and port, as the connection pool tells origins apart. */
export function hostOf(url: string): string {
  // A listen session has no host: each is a destination of its own, one developer's machine.
  if (url.startsWith(LISTEN_URL_PREFIX)) return url;
  try {
    // A trailing dot names the same host: it is no way round its share.
    return new URL(url).host.toLowerCase().replace(/\.(?=:\d+$|$)/, '');
  } catch {
    return url;
  }
}

/**
 * Each endpoint's team, read once (an endpoint never changes team) and kept, at most
 * ENDPOINTS_KEPT of them. Reads of one moment share one statement.
 */
export class EndpointTeams {
  private readonly known = new Map<string, string>();
  private readonly loader;

  constructor(pool: pg.Pool) {
    this.loader = statementBatches(
      async (ids: readonly string[]) => {
        const { rows } = await pool.query<{ id: string; team_id: string }>({
          name: 'endpoint-teams',
          text: 'SELECT id, team_id FROM webhooks.webhook_endpoints WHERE id = ANY($1::uuid[])',
          values: [ids],
        });
        const byId = new Map(rows.map((row) => [row.id, row.team_id]));
        return ids.map((id) => byId.get(id));
      },
      { maxBatchSize: 500 },
    );
  }

  /** The endpoint's team; undefined for an endpoint deleted meanwhile. */
  async of(endpointId: string): Promise<string | undefined> {
    const known = this.known.get(endpointId);
    if (known !== undefined) return known;
    const teamId = await this.loader.load(endpointId);
    if (teamId !== undefined) noteMostRecent(this.known, endpointId, teamId);
    return teamId;
  }
}
