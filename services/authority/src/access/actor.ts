import { RpcError } from '@feedback/messaging';
import type { Member, MemberSession, PrismaClient } from '../generated/prisma/client.js';
import type { SessionSigner } from '../members/session-tokens.js';

export type Role = Member['role'];

export function sessionInvalid(): RpcError {
  return new RpcError('session_invalid', 'This session has ended or expired, or no longer matches a member. Sign in again.');
}

/** A command's acting member, as they are now, and the session their token belongs to. */
export interface LiveSession {
  member: Member;
  session: MemberSession;
  /** When the token presented expires: a renewed session has later tokens too. */
  tokenExpiresAt: Date;
  /** The generation of the token presented, which only a renewal compares with the session's. */
  tokenGeneration: number;
}

/**
 * Who acts in a command: the member whose signed session token it carries. The token is verified
 * here (signature, issuer, audience, expiry), its session must be live (not ended, before its
 * absolute end), and the member is loaded afresh: a sign-out, a role changed or a member removed
 * takes effect at once, whatever the token says and whichever api instance forwarded it.
 */
export function memberAccess(prisma: PrismaClient, signer: SessionSigner, now: () => number = Date.now) {
  async function liveSession(token: string): Promise<LiveSession> {
    const claims = await signer.verify(token);
    if (!claims) throw sessionInvalid();
    const session = await prisma.memberSession.findUnique({ where: { id: claims.sessionId }, include: { member: true } });
    const at = now();
    if (
      !session ||
      session.endedAt !== null ||
      session.expiresAt.getTime() <= at ||
      session.latestEndAt.getTime() <= at ||
      session.memberId !== claims.memberId ||
      session.member.teamId !== claims.teamId
    ) {
      throw sessionInvalid();
    }
    // Any generation of a live session counts here, not only its current one: a request another
    // tab sent just before a renewal still succeeds. Renewal alone asks for the current one.
    const { member, ...record } = session;
    return { member, session: record, tokenExpiresAt: claims.expiresAt, tokenGeneration: claims.generation };
  }

  return {
    liveSession,
    /** The acting member, loaded afresh for this command. */
    async loadActor(token: string): Promise<Member> {
      return (await liveSession(token)).member;
    },
  };
}
export type MemberAccess = ReturnType<typeof memberAccess>;

/** Specification 1.4: only Owners and Admins view or manage API keys and webhook endpoints. */
export function requireRole(member: Member, allowed: readonly Role[], what: string): void {
  if (!allowed.includes(member.role)) {
    throw new RpcError('insufficient_role', `Only ${allowed.join(' or ')} members can ${what}.`);
  }
}

export const KEY_MANAGERS: readonly Role[] = ['owner', 'admin'];
