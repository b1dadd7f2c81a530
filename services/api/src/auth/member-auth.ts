import type { RequestHandler } from 'express';
import type { JSONWebKeySet } from 'jose';
import { AuthorityKeys, AuthorityKeysUnavailable } from '@feedback/authority-keys';
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

export function invalidSession(message = 'Sign in again: the session is missing, expired or invalid.'): ApiError {
  return new ApiError('invalid_session', message, {}, { 'WWW-Authenticate': 'Bearer realm="dashboard"' });
}

/** The authority's public keys, as this api instance verifies member sessions with them. */
export function sessionKeys(rpc: Pick<RpcClient, 'call'>): AuthorityKeys {
  return new AuthorityKeys(async () => (await rpc.call('authority.getSessionKeys', {})) as unknown as JSONWebKeySet);
}

/**
 * Verifies the member session token the authority signed (asymmetric: the api holds only the
 * public key). Keys the authority could not give are a 503, never a session refused.
 */
export function memberAuth(keys: AuthorityKeys): RequestHandler {
  return async (request, _response, next) => {
    try {
      const token = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
      if (!token) throw invalidSession();
      const payload = await keys.verify(token, { issuer: 'authority', audience: 'dashboard', algorithms: ['EdDSA'] }).catch((error: unknown) => {
        throw error instanceof AuthorityKeysUnavailable ? keysUnavailable() : invalidSession();
      });
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

function keysUnavailable(): ApiError {
  return new ApiError('service_unavailable', 'Sessions cannot be checked right now. Retry shortly.', {}, { 'Retry-After': '1' });
}
