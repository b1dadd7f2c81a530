import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import { isWellFormedPublicKey } from '@feedback/keys';
import type { Logger } from '@feedback/logging';
import { clientAddressKey } from './client-address.js';
import { SharedLimit, tooManyRequests } from './shared-limit.js';

export interface RequestLimitsOptions {
  /** Failed authentications per client address per minute, on each of /api/v1 and /dashboard/v1. */
  authFailuresPerMinute: number;
  /** Sign-ups per client address per hour. */
  signUpsPerHour: number;
  /** Sign-in attempts per client address per minute. */
  signInsPerAddressPerMinute: number;
  /** Failed sign-ins per account in 15 minutes before it is refused for a while, the while doubling each time. */
  signInFailuresPerAccount: number;
  /** Widget requests per client address per minute, whatever the key. */
  widgetRequestsPerAddressPerMinute: number;
  /** Widget requests per public key per minute, from every address together. */
  widgetRequestsPerKeyPerMinute: number;
  /** Told, at most once a minute for each limit, that its store failed and counts are taken in memory. */
  logger?: Logger;
}

/** The shortest time between two warnings that one limit's store failed. */
const STORE_FAILURE_WARNING_MS = 60_000;

/** An account's window of failed sign-ins. */
const ACCOUNT_WINDOW_SECONDS = 15 * 60;
/** The longest an account is refused after failed sign-ins. */
const MAX_ACCOUNT_BLOCK_SECONDS = 24 * 3600;

/** The client's address as limits count it: IPv6 by its /64. */
export const clientOf = (request: Request) => clientAddressKey(request.ip);

/** An account as the limits table keys it: its email, normalised and hashed. The email is not stored as it is; a guess can still be tested against it. */
const accountKey = (email: unknown) => createHash('sha256').update(String(email ?? '').trim().toLowerCase()).digest('hex');

/**
 * Every limit the api counts before it does the work, shared by its instances through
 * PostgreSQL. Each answers 429 `rate_limited` with Retry-After.
 */
export class RequestLimits {
  readonly apiFailures: SharedLimit;
  readonly dashboardFailures: SharedLimit;
  private readonly signUps: SharedLimit;
  private readonly signInsByAddress: SharedLimit;
  private readonly signInsByAccount: SharedLimit;
  /** How many times an account was refused in the last day: each refusal lasts twice the one before. */
  private readonly accountBlocks: SharedLimit;
  private readonly widgetByAddress: SharedLimit;
  private readonly widgetByKey: SharedLimit;

  constructor(pool: pg.Pool, options: RequestLimitsOptions) {
    const warned = new Map<string, number>();
    const storeFailed = (name: string) => () => {
      const now = Date.now();
      if (now - (warned.get(name) ?? -Infinity) < STORE_FAILURE_WARNING_MS) return;
      warned.set(name, now);
      options.logger?.warn("a request limit's store did not answer: each instance counts it alone in memory", { limit: name });
    };
    const limit = (name: string, points: number, durationSeconds: number) => new SharedLimit(pool, { name, points, durationSeconds }, points + 1, storeFailed(name));
    // Their counts are given back once a request turns out no guess. Refused from memory only at
    // three times the limit: a flood, not a burst of honest requests sent at the same moment.
    const failureLimit = (name: string) =>
      new SharedLimit(pool, { name, points: options.authFailuresPerMinute, durationSeconds: 60 }, options.authFailuresPerMinute * 3, storeFailed(name));
    this.apiFailures = failureLimit('auth-failures-api');
    this.dashboardFailures = failureLimit('auth-failures-dashboard');
    this.signUps = limit('sign-ups', options.signUpsPerHour, 3600);
    this.signInsByAddress = limit('sign-ins', options.signInsPerAddressPerMinute, 60);
    this.signInsByAccount = limit('sign-in-failures', options.signInFailuresPerAccount, ACCOUNT_WINDOW_SECONDS);
    this.accountBlocks = limit('sign-in-blocks', 1_000_000, 24 * 3600);
    this.widgetByAddress = limit('widget-address', options.widgetRequestsPerAddressPerMinute, 60);
    this.widgetByKey = limit('widget-key', options.widgetRequestsPerKeyPerMinute, 60);
  }

  /** Before a sign-up: its address's sign-ups this hour. */
  readonly signUp: RequestHandler = async (request, _response, next) => {
    try {
      await this.signUps.take(clientOf(request), 'Too many sign-ups from this address. Wait before trying again.');
      next();
    } catch (error) {
      next(error);
    }
  };

  /**
   * Before a sign-in: its address's attempts this minute, and its account's failures in 15
   * minutes, counted before the password is checked. A sign-in that succeeds starts its
   * account's count again. An account past its limit is refused for 15 minutes, then 30, 60 and
   * so on, up to a day: guesses spread over many addresses get a few an hour.
   */
  readonly signIn: RequestHandler = async (request, response, next) => {
    try {
      await this.signInsByAddress.take(clientOf(request), 'Too many sign-in attempts from this address. Wait before trying again.');
      const account = accountKey((request.body as { email?: unknown } | undefined)?.email);
      const counted = await this.signInsByAccount.count(account);
      if (!counted.allowed) {
        // The attempt that first goes past the limit starts a refusal; those during it are told how long is left.
        const msLeft = counted.consumed === this.signInsByAccount.rule.points + 1 ? await this.backOff(account) : counted.msBeforeNext;
        throw tooManyRequests(msLeft, 'Too many failed sign-ins for this account. Wait before trying again.');
      }
      response.on('finish', () => {
        if (response.statusCode === 200) void this.signInsByAccount.reset(account);
      });
      next();
    } catch (error) {
      next(error);
    }
  };

  /** Refuses the account for 15 minutes, twice that if it was refused before in the last day, and so on; answers for how long, in ms. */
  private async backOff(account: string): Promise<number> {
    const { consumed: blocks } = await this.accountBlocks.count(account);
    const seconds = Math.min(ACCOUNT_WINDOW_SECONDS * 2 ** Math.min(blocks - 1, 16), MAX_ACCOUNT_BLOCK_SECONDS);
    await this.signInsByAccount.block(account, seconds);
    return seconds * 1000;
  }

  /**
   * Before any widget request: its address's requests this minute, whatever key it sends (random
   * keys included), and its public key's, from every address together. A key copied from a
   * customer's page then creates at most so much a minute.
   */
  readonly widget: RequestHandler = async (request, _response, next) => {
    try {
      await this.widgetByAddress.take(clientOf(request), 'Too many requests from this address. Wait before trying again.');
      const key = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
      if (key && isWellFormedPublicKey(key)) await this.widgetByKey.take(key, "Too many requests with this app's public key. Wait before trying again.");
      next();
    } catch (error) {
      next(error);
    }
  };
}
