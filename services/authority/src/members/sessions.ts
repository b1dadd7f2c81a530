import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { Member, MemberSession, Prisma, PrismaClient, Team } from '../generated/prisma/client.js';
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
 * How long a token of the generation just replaced still renews its session. Tabs share one token,
 * so two of them, or a retry after a lost answer, may renew with it moments apart.
 */
export const RENEWAL_GRACE_SECONDS = 30;

/**
 * What a renewal with a token of generation `presented` does, at `at`:
 * - `advance`: the current generation, so the answer is the next one.
 * - `repeat`: the one just replaced, within the grace, so the answer is the current one again.
 * - `reuse`: any other, a sign that a copy of the token is in use, so the session ends.
 */
function renewalOf(session: Pick<MemberSession, 'generation' | 'renewedAt'>, presented: number, at: number): 'advance' | 'repeat' | 'reuse' {
  if (presented === session.generation) return 'advance';
  const replacedAt = session.renewedAt?.getTime() ?? -Infinity;
  if (presented === session.generation - 1 && at < replacedAt + RENEWAL_GRACE_SECONDS * 1000) return 'repeat';
  return 'reuse';
}

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
  logger: Logger,
  /** Milliseconds since the epoch. Default: the system clock. */
  now: () => number = Date.now,
) {
  const answer = async (member: Member, team: Team, session: { id: string; generation: number; expiresAt: Date }) => ({
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
      const { id } = live.session;
      const outcome = await prisma.$transaction(async (tx) => {
        // Locked, so that two renewals with one token cannot both advance the generation from it.
        await tx.$executeRaw`SELECT 1 FROM authority.member_sessions WHERE id = ${id}::uuid FOR UPDATE`;
        const current = await tx.memberSession.findUnique({ where: { id } });
        // Signed out, or ended by a reuse, since the check above.
        if (!current || current.endedAt !== null) return undefined;
        const renewal = renewalOf(current, live.tokenGeneration, at);
        if (renewal === 'reuse') {
          // Ended as at sign-out: every token of it is refused from now on, the newest included.
          await tx.memberSession.update({ where: { id }, data: { endedAt: new Date(at), expiresAt: new Date(at) } });
          return { renewal, generation: current.generation };
        }
        // Never moved back: of two renewals at once, the one that expires later keeps its token valid.
        const later = new Date(Math.max(current.expiresAt.getTime(), expiresAt.getTime()));
        const advanced = renewal === 'advance' ? { generation: { increment: 1 }, renewedAt: new Date(at) } : {};
        const renewed = await tx.memberSession.update({ where: { id }, data: { expiresAt: later, ...advanced } });
        return { renewal, generation: renewed.generation };
      });
      if (!outcome) throw sessionInvalid();
      if (outcome.renewal === 'reuse') {
        logger.warn('session token renewed again after it was replaced; session ended', {
          sessionId: id,
          memberId: live.member.id,
          generation: live.tokenGeneration,
          currentGeneration: outcome.generation,
        });
        throw sessionInvalid();
      }
      const team = await prisma.team.findUniqueOrThrow({ where: { id: live.member.teamId } });
      return answer(live.member, team, { id, generation: outcome.generation, expiresAt });
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
