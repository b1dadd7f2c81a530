import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Member, Prisma, PrismaClient, Team } from '../generated/prisma/client.js';
import { sessionInvalid } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import { memberView, teamView } from '../views.js';
import type { SessionSigner } from './session-tokens.js';

export interface SessionLifetimes {
  /** A token's lifetime: a session nobody renews for this long has expired (idle expiry). */
  ttlSeconds: number;
  /** A session's absolute end, counted from sign-in, however often it is renewed. */
  maxSeconds: number;
}

/** The earlier of `untilMs` and `endMs`, in whole seconds as a token's `exp` holds it. */
const tokenExpiry = (untilMs: number, endMs: number) => new Date(Math.floor(Math.min(untilMs, endMs) / 1000) * 1000);

/**
 * Member sessions: begun at sign-up and sign-in, renewed while the dashboard is in use, ended at
 * sign-out. A token names its session (`sid`); the session decides whether the token still
 * counts, on every command (`memberAccess`).
 */
export function sessionCommands(
  prisma: PrismaClient,
  signer: SessionSigner,
  access: MemberAccess,
  lifetimes: SessionLifetimes,
  /** Milliseconds since the epoch. Default: the system clock. */
  now: () => number = Date.now,
) {
  const answer = async (member: Member, team: Team, session: { id: string; expiresAt: Date }) => ({
    token: await signer.sign(member, session),
    expires_at: session.expiresAt.toISOString(),
    member: memberView(member),
    team: teamView(team),
  });

  return {
    /** A new session for a member who just signed up or in (within the caller's transaction, if any), and its first token. */
    async begin(member: Member, team: Team, tx: Prisma.TransactionClient = prisma): Promise<RpcResult<'authority.signIn'>> {
      const at = now();
      const latestEndAt = new Date(at + lifetimes.maxSeconds * 1000);
      const expiresAt = tokenExpiry(at + lifetimes.ttlSeconds * 1000, latestEndAt.getTime());
      const session = await tx.memberSession.create({ data: { memberId: member.id, createdAt: new Date(at), expiresAt, latestEndAt } });
      return answer(member, team, session);
    },

    async getSession({ session }: RpcRequest<'authority.getSession'>): Promise<RpcResult<'authority.getSession'>> {
      const { member, tokenExpiresAt } = await access.liveSession(session);
      const team = await prisma.team.findUniqueOrThrow({ where: { id: member.teamId } });
      return { expires_at: tokenExpiresAt.toISOString(), member: memberView(member), team: teamView(team) };
    },

    async renewSession({ session }: RpcRequest<'authority.renewSession'>): Promise<RpcResult<'authority.renewSession'>> {
      const live = await access.liveSession(session);
      const at = now();
      const expiresAt = tokenExpiry(at + lifetimes.ttlSeconds * 1000, live.session.latestEndAt.getTime());
      // Within the last second of its absolute end a session has no whole second left to give.
      if (expiresAt.getTime() <= at) throw sessionInvalid();
      // Never moved back: of two renewals at once, the one that expires later keeps its token valid.
      const renewed = await prisma.$executeRaw`
        UPDATE authority.member_sessions SET expires_at = GREATEST(expires_at, ${expiresAt})
        WHERE id = ${live.session.id}::uuid AND ended_at IS NULL`;
      // Signed out between the check above and this update.
      if (renewed === 0) throw sessionInvalid();
      const team = await prisma.team.findUniqueOrThrow({ where: { id: live.member.teamId } });
      return answer(live.member, team, { id: live.session.id, expiresAt });
    },

    async endSession({ session }: RpcRequest<'authority.endSession'>): Promise<RpcResult<'authority.endSession'>> {
      const { session: record } = await access.liveSession(session);
      const at = new Date(now());
      // Its expiry becomes the moment it ended, so pruning finds ended sessions by expiry alone.
      await prisma.memberSession.updateMany({ where: { id: record.id, endedAt: null }, data: { endedAt: at, expiresAt: at } });
      return {};
    },
  };
}
export type SessionCommands = ReturnType<typeof sessionCommands>;
