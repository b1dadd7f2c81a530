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
  /** Attempts one team may start a second in this worker; the rest wait in a throttle queue. Default: 2000. */
  teamRatePerSecond?: number;
  /**
   * How long an attempt refused here may wait in this worker for a place, when its host answers
   * well, before it goes round a throttle queue instead. Default: 250.
   */
  shortWaitMs?: number;
  /** Where refusals are counted, by reason. */
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

/** An attempt waiting here for a place, first come first served among those it may take. */
interface Waiter {
  teamId: string;
  host: string;
  resolve: (place: FairSharePlace | FairShareRefusal) => void;
  timer: NodeJS.Timeout;
}

/**
 * Keeps one tenant from taking a worker from the others. An attempt may start only while:
 * - its destination host has fewer than `perHost` attempts in flight here, from every team
 *   together, so that a thousand endpoints at one host (a slow one, or a victim the platform's
 *   traffic is aimed at) hold a bounded part of the worker;
 * - its team has fewer than its fair share in flight: the worker's slots divided among the teams
 *   with attempts in flight, at most `perTeam`, so that a team's thousand endpoints at a thousand
 *   hosts leave room for the others;
 * - its team has started fewer than `teamRatePerSecond` attempts this second.
 * An attempt refused while its host answers well waits here briefly (`waitForPlace`): a burst to a
 * fast receiver goes at the receiver's pace. One refused for a slow host, or still refused after
 * the short wait, is not dropped: its caller sends it round a throttle queue, and it comes back.
 */
export class FairShare {
  private readonly hosts = new Map<string, number>();
  private readonly teams = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  /** Hosts whose latest answer here failed or took over a second. */
  private readonly slowHosts = new Set<string>();
  private readonly perHost: number;
  private readonly perTeam: number;
  private readonly rate: number;
  private readonly shortWaitMs: number;
  private readonly now: () => number;
  private readonly waiters: Waiter[] = [];
  /**
   * Attempts that may wait here at once: four times the worker's slots, so that a burst's attempts
   * admitted by their endpoints' slots wait for their host here rather than go round the broker.
   */
  private readonly maxWaiters: number;
  /** Set while a waiter waits for its team's tokens: the time they come back is the only event. */
  private rateTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly refusals: Counter<'reason'> | undefined;

  constructor(private readonly options: FairShareOptions) {
    this.perHost = options.perHost ?? 16;
    this.perTeam = options.perTeam ?? Math.max(1, Math.floor(options.concurrency / 2));
    this.rate = options.teamRatePerSecond ?? 4000;
    this.shortWaitMs = options.shortWaitMs ?? 250;
    this.maxWaiters = 4 * options.concurrency;
    this.now = options.now ?? (() => performance.now());
    this.refusals =
      options.registry &&
      new Counter({
        name: 'feedback_webhook_fair_share_refusals_total',
        help: "Attempts sent round a throttle queue to keep a tenant's share: their host was at its cap (host), their team at its share (team) or rate (rate)",
        labelNames: ['reason'],
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
    return refusal ? this.refused(refusal) : this.placeFor(teamId, host);
  }

  /**
   * As `take`, but an attempt refused while its host answers well waits here for a place, at most
   * `shortWaitMs`. A slow host's attempt, one past the most waiters, and one still
   * refused at the end of the wait get the refusal, and go round a throttle queue.
   */
  acquire(teamId: string, url: string): Promise<FairSharePlace | FairShareRefusal> {
    const host = hostOf(url);
    const refusal = this.refusalFor(teamId, host);
    if (!refusal) return Promise.resolve(this.placeFor(teamId, host));
    if (this.stopping || this.slowHosts.has(host) || this.waiters.length >= this.maxWaiters) return Promise.resolve(this.refused(refusal));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        teamId,
        host,
        resolve,
        timer: setTimeout(() => {
          this.removeWaiter(waiter);
          const last = this.refusalFor(teamId, host);
          resolve(last ? this.refused(last) : this.placeFor(teamId, host));
        }, this.shortWaitMs),
      };
      this.waiters.push(waiter);
      if (refusal === 'rate') this.retryWhenTokensReturn();
    });
  }

  /** For shutdown: every attempt waiting here for a place goes round a throttle queue now. */
  stop(): void {
    this.stopping = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve(this.refused('host'));
    }
  }

  private refused(refusal: FairShareRefusal): FairShareRefusal {
    this.refusals?.inc({ reason: refusal });
    return refusal;
  }

  /** Counts an attempt in flight for its host and team; answers the function that gives it back. */
  private placeFor(teamId: string, host: string): FairSharePlace {
    this.hosts.set(host, (this.hosts.get(host) ?? 0) + 1);
    this.teams.set(teamId, (this.teams.get(teamId) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      decrement(this.hosts, host);
      decrement(this.teams, teamId);
      this.grantWaiters();
    };
  }

  /** Gives places to the waiters that may take one now, oldest first; the others keep waiting. */
  private grantWaiters(): void {
    if (this.waiters.length === 0) return;
    let blockedByRate = false;
    for (let n = 0; n < this.waiters.length; ) {
      const waiter = this.waiters[n]!;
      const refusal = this.refusalFor(waiter.teamId, waiter.host);
      if (refusal) {
        blockedByRate ||= refusal === 'rate';
        n += 1;
        continue;
      }
      this.waiters.splice(n, 1);
      clearTimeout(waiter.timer);
      waiter.resolve(this.placeFor(waiter.teamId, waiter.host));
    }
    if (blockedByRate) this.retryWhenTokensReturn();
  }

  /** Tries the waiters again once a team's next token is due: no place coming back says so. */
  private retryWhenTokensReturn(): void {
    if (this.rateTimer) return;
    this.rateTimer = setTimeout(() => {
      this.rateTimer = undefined;
      this.grantWaiters();
    }, Math.max(1, Math.ceil(1000 / this.rate)));
  }

  private removeWaiter(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
  }

  /** Notes how a host answered: failed, or slower than a second, marks it slow until it answers well. */
  noteAnswer(url: string, durationMs: number, delivered: boolean): void {
    const host = hostOf(url);
    if (delivered && durationMs <= 1000) this.slowHosts.delete(host);
    else if (this.slowHosts.size < 10_000) {
      this.slowHosts.add(host);
      this.turnAwayWaitersFor(host);
    }
  }

  /** A host turned slow: its attempts waiting here go round a throttle queue rather than wait on it. */
  private turnAwayWaitersFor(host: string): void {
    for (const waiter of this.waiters.filter((candidate) => candidate.host === host)) {
      this.removeWaiter(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(this.refused('host'));
    }
  }

  /** Whether this URL's host is slow and has its share in flight here: an attempt for it now would be refused. */
  isFullAndSlow(url: string): boolean {
    const host = hostOf(url);
    return this.slowHosts.has(host) && (this.hosts.get(host) ?? 0) >= this.perHost;
  }

  /** Whether this URL's host answered its latest attempt here slowly or not at all. */
  isSlow(url: string): boolean {
    return this.slowHosts.has(hostOf(url));
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

/** Only keys with attempts in flight are kept. */
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
