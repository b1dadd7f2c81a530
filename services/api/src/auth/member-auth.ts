import type { RequestHandler } from 'express';
import { createLocalJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import type { RpcClient } from '@feedback/messaging';
import { ApiError } from '../http/api-error.js';

export interface MemberSession {
  member_id: string;
  team_id: string;
  role: string;
  /** For display as an event's sender. */
  name: string;
  /**
   * The signed token itself. Every command to the authority carries it, and the authority verifies
   * it again: the check here is an early refusal, which cannot know that a session has ended.
   */
  token: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The signed-in member, set by memberAuth. */
      member?: MemberSession;
    }
  }
}

/**
 * The authority's public keys: fetched again once they are `maxAgeMs` old, so a key the authority
 * stopped using stops verifying here, and when a token names a key we do not have (rotation).
 */
export class SessionKeys {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = 0;

  constructor(
    private readonly rpc: Pick<RpcClient, 'call'>,
    /** Default: 600000 (ten minutes). */
    private readonly maxAgeMs = 600_000,
    /** Milliseconds since the epoch. Default: the system clock. */
    private readonly now: () => number = Date.now,
  ) {}

  async get(refresh = false) {
    const age = this.now() - this.fetchedAt;
    if (!this.keySet || age > this.maxAgeMs || (refresh && age > 30_000)) {
      const jwks = (await this.rpc.call('authority.getSessionKeys', {})) as unknown as JSONWebKeySet;
      this.keySet = createLocalJWKSet(jwks);
      this.fetchedAt = this.now();
    }
    return this.keySet;
  }
}

export function invalidSession(message = 'Sign in again: the session is missing, expired or invalid.'): ApiError {
  return new ApiError('invalid_session', message, {}, { 'WWW-Authenticate': 'Bearer realm="dashboard"' });
}

/** Verifies the member session token the authority signed (asymmetric: api holds only the public key). */
export function memberAuth(rpc: RpcClient): RequestHandler {
  const keys = new SessionKeys(rpc);
  const verify = async (token: string, refresh: boolean) =>
    jwtVerify(token, await keys.get(refresh), { issuer: 'authority', audience: 'dashboard', algorithms: ['EdDSA'] });
  return async (request, _response, next) => {
    try {
      const token = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
      if (!token) throw invalidSession();
      let payload;
      try {
        payload = (await verify(token, false)).payload;
      } catch (error) {
        if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw invalidSession();
        payload = (await verify(token, true).catch(() => Promise.reject(invalidSession()))).payload;
      }
      request.member = {
        member_id: String(payload.sub),
        team_id: String(payload['team_id']),
        role: String(payload['role']),
        name: String(payload['name'] ?? ''),
        token,
      };
      next();
    } catch (error) {
      next(error);
    }
  };
}
