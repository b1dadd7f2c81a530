import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, jwtVerify } from 'jose';
import type { JWK } from 'jose';

export const SESSION_ISSUER = 'authority';
export const SESSION_AUDIENCE = 'dashboard';
/** The audience of a webhook management grant: the webhook worker, never the dashboard. */
export const GRANT_AUDIENCE = 'webhook-worker';
/** How long a grant is good for: the one command the api sends right after it is given. */
export const GRANT_TTL_SECONDS = 60;

/** What a verified session token says. */
export interface SessionClaims {
  memberId: string;
  teamId: string;
  /** The session record (`member_sessions`) the token belongs to. */
  sessionId: string;
  /** Which of the session's tokens this is: 0 at sign-in, one more at each renewal. */
  generation: number;
  expiresAt: Date;
}

/** The member a token is signed for. */
export interface SessionMember {
  id: string;
  teamId: string;
  role: string;
  name: string;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isGeneration = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Signs member session tokens with an Ed25519 key from configuration, and verifies them. Only the
 * authority holds the private key; api instances verify with the public key
 * (`authority.getSessionKeys`) as an early refusal, and the authority verifies again on every
 * command.
 */
export class SessionSigner {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  readonly keyId: string;
  private readonly publicJwk: Promise<JWK>;

  constructor(
    privateKeyPem: string,
    /** Milliseconds since the epoch. Default: the system clock. */
    private readonly now: () => number = Date.now,
  ) {
    this.privateKey = createPrivateKey(privateKeyPem);
    if (this.privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the session signing key must be an Ed25519 private key');
    this.publicKey = createPublicKey(this.privateKey);
    this.keyId = this.publicKey.export({ format: 'der', type: 'spki' }).subarray(-8).toString('hex');
    this.publicJwk = exportJWK(this.publicKey).then((jwk) => ({ ...jwk, kid: this.keyId, alg: 'EdDSA', use: 'sig' }));
  }

  /** A token of `session` and its `generation` for `member`, valid until `expiresAt` (whole seconds, as JWTs count). */
  async sign(member: SessionMember, session: { id: string; generation: number; expiresAt: Date }): Promise<string> {
    // The name is for display as an event's sender; decisions never trust the token's role.
    return new SignJWT({ team_id: member.teamId, role: member.role, name: member.name, sid: session.id, gen: session.generation })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.keyId })
      .setSubject(member.id)
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setIssuedAt(Math.floor(this.now() / 1000))
      .setExpirationTime(Math.floor(session.expiresAt.getTime() / 1000))
      .sign(this.privateKey);
  }

  /**
   * A grant to manage one app's webhook endpoints, for the webhook worker: the app, its public key,
   * its team and the team's plan with its version, signed, for `GRANT_TTL_SECONDS`. A member's session cannot
   * pass for one, nor one for a session: their audiences differ.
   */
  async signGrant(grant: { teamId: string; appId: number; publicKey: string; plan: string; planVersion: number; memberId: string }): Promise<string> {
    const now = Math.floor(this.now() / 1000);
    return new SignJWT({ team_id: grant.teamId, app_id: grant.appId, public_key: grant.publicKey, plan: grant.plan, plan_version: grant.planVersion })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.keyId })
      .setSubject(grant.memberId)
      .setIssuer(SESSION_ISSUER)
      .setAudience(GRANT_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + GRANT_TTL_SECONDS)
      .sign(this.privateKey);
  }

  /**
   * The claims of a token this authority signed, for this audience, not yet expired; undefined
   * for any other. Whether its session is still live is the caller's to check.
   */
  async verify(token: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
        algorithms: ['EdDSA'],
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'sid'],
      });
      // Tokens signed before sessions had generations name none: they are the first of theirs.
      const { sub, team_id: teamId, sid, gen = 0, exp } = payload;
      if (!isText(sub) || !isText(teamId) || !isText(sid) || !isGeneration(gen) || typeof exp !== 'number') return undefined;
      return { memberId: sub, teamId, sessionId: sid, generation: gen, expiresAt: new Date(exp * 1000) };
    } catch {
      return undefined;
    }
  }

  async keySet(): Promise<{ keys: JWK[] }> {
    return { keys: [await this.publicJwk] };
  }
}
