import type pg from 'pg';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { noteMostRecent } from './recent-notes.js';
import { statementBatches } from './statement-batches.js';
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

/**
 * Keeps one tenant from taking a worker from the others. An attempt may start only while:
 * - its destination host has fewer than `perHost` attempts in flight here, from every team
 *   together, so that a thousand endpoints at one host (a slow one, or a victim the platform's
 *   traffic is aimed at) hold a bounded part of the worker;
 * - its team has fewer than its fair share in flight: the worker's slots divided among the teams
 *   with attempts in flight, at most `perTeam`, so that a team's thousand endpoints at a thousand
 *   hosts leave room for the others;
 * - its team has started fewer than `teamRatePerSecond` attempts this second.
 * An attempt refused here is not dropped: its caller sends it round a throttle queue, as for an
 * endpoint without a free slot, and it comes back.
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
  private readonly now: () => number;
  private readonly refusals: Counter<'reason'> | undefined;

  constructor(private readonly options: FairShareOptions) {
    this.perHost = options.perHost ?? 16;
    this.perTeam = options.perTeam ?? Math.max(1, Math.floor(options.concurrency / 2));
    this.rate = options.teamRatePerSecond ?? 2000;
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
  take(teamId: string, url: string): (() => void) | FairShareRefusal {
    const host = hostOf(url);
    const refusal = this.refusalFor(teamId, host);
    if (refusal) {
      this.refusals?.inc({ reason: refusal });
      return refusal;
    }
    this.hosts.set(host, (this.hosts.get(host) ?? 0) + 1);
    this.teams.set(teamId, (this.teams.get(teamId) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      decrement(this.hosts, host);
      decrement(this.teams, teamId);
    };
  }

  /** Notes how a host answered: failed, or slower than a second, marks it slow until it answers well. */
  noteAnswer(url: string, durationMs: number, delivered: boolean): void {
    const host = hostOf(url);
    if (delivered && durationMs <= 1000) this.slowHosts.delete(host);
    else if (this.slowHosts.size < 10_000) this.slowHosts.add(host);
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
