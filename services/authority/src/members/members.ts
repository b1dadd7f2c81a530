import type { RpcRequest, RpcResult } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { requireRole, sessionInvalid } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import { memberView, teamView } from '../views.js';
import { UNKNOWN_MEMBER_HASH, hashPassword, verifyPassword } from './password.js';
import { PasswordHashing } from './password-hashing.js';
import type { SessionSigner } from './session-tokens.js';
import type { SessionCommands } from './sessions.js';

const normalizeEmail = (email: string) => email.trim().toLowerCase();

function emailTaken(error: unknown): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
    throw new RpcError('email_taken', 'A member with this email already exists.');
  }
  throw error;
}

export function memberCommands(prisma: PrismaClient, signer: SessionSigner, access: MemberAccess, sessions: SessionCommands, hashing: PasswordHashing = new PasswordHashing()) {
  return {
    /** A new team starts on the Free plan with its creator as Owner, signed in. */
    async signUp(request: RpcRequest<'authority.signUp'>): Promise<RpcResult<'authority.signUp'>> {
      const passwordHash = await hashing.run(() => hashPassword(request.password));
      return prisma
        .$transaction(async (tx) => {
          const member = await tx.member.create({
            data: {
              email: normalizeEmail(request.email),
              name: request.name,
              passwordHash,
              role: 'owner',
              team: { create: { name: request.team_name } },
            },
            include: { team: true },
          });
          return sessions.begin(member, member.team, tx);
        })
        .catch(emailTaken);
    },

    async signIn(request: RpcRequest<'authority.signIn'>): Promise<RpcResult<'authority.signIn'>> {
      const member = await prisma.member.findUnique({ where: { email: normalizeEmail(request.email) }, include: { team: true } });
      const valid = await hashing.run(() => verifyPassword(request.password, member?.passwordHash ?? UNKNOWN_MEMBER_HASH));
      if (!member || !valid) throw new RpcError('invalid_credentials', 'The email or the password is wrong.');
      return sessions.begin(member, member.team);
    },

    async getSessionKeys(): Promise<RpcResult<'authority.getSessionKeys'>> {
      return (await signer.keySet()) as RpcResult<'authority.getSessionKeys'>;
    },

    async getTeam({ session }: RpcRequest<'authority.getTeam'>): Promise<RpcResult<'authority.getTeam'>> {
      const acting = await access.loadActor(session);
      return teamView(await prisma.team.findUniqueOrThrow({ where: { id: acting.teamId } }));
    },

    async listMembers({ session }: RpcRequest<'authority.listMembers'>): Promise<RpcResult<'authority.listMembers'>> {
      const acting = await access.loadActor(session);
      const members = await prisma.member.findMany({ where: { teamId: acting.teamId }, orderBy: { createdAt: 'asc' } });
      return { items: members.map(memberView) };
    },

    async addMember(request: RpcRequest<'authority.addMember'>): Promise<RpcResult<'authority.addMember'>> {
      const acting = await access.loadActor(request.session);
      requireRole(acting, request.role === 'member' ? ['owner', 'admin'] : ['owner'], `add ${request.role === 'member' ? 'members' : 'Admins or Owners'}`);
      const member = await prisma.member
        .create({
          data: {
            teamId: acting.teamId,
            email: normalizeEmail(request.email),
            name: request.name,
            passwordHash: await hashing.run(() => hashPassword(request.password)),
            role: request.role,
          },
        })
        .catch(emailTaken);
      return memberView(member);
    },

    async changeRole(request: RpcRequest<'authority.changeRole'>): Promise<RpcResult<'authority.changeRole'>> {
      const acting = await access.loadActor(request.session);
      requireRole(acting, ['owner'], 'change roles');
      return prisma.$transaction(async (tx) => {
        const target = await lockTeamMember(tx, acting.teamId, request.member_id);
        requireRole(await actingUnderLock(tx, acting.id), ['owner'], 'change roles');
        if (target.role === 'owner' && request.role !== 'owner') await ensureAnotherOwner(tx, acting.teamId, target.id);
        return memberView(await tx.member.update({ where: { id: target.id }, data: { role: request.role } }));
      });
    },

    async removeMember(request: RpcRequest<'authority.removeMember'>): Promise<RpcResult<'authority.removeMember'>> {
      const acting = await access.loadActor(request.session);
      requireRole(acting, ['owner', 'admin'], 'remove members');
      await prisma.$transaction(async (tx) => {
        const target = await lockTeamMember(tx, acting.teamId, request.member_id);
        const actingNow = await actingUnderLock(tx, acting.id);
        requireRole(actingNow, ['owner', 'admin'], 'remove members');
        if (target.role !== 'member') requireRole(actingNow, ['owner'], 'remove Admins or Owners');
        if (target.role === 'owner') await ensureAnotherOwner(tx, acting.teamId, target.id);
        await tx.member.delete({ where: { id: target.id } });
      });
      return {};
    },
  };
}

/** Locks the team's members for the transaction, so two concurrent demotions cannot leave no Owner. */
async function lockTeamMember(tx: Prisma.TransactionClient, teamId: string, memberId: string) {
  await tx.$executeRaw`SELECT 1 FROM authority.teams WHERE id = ${teamId}::uuid FOR UPDATE`;
  const target = await tx.member.findUnique({ where: { id: memberId } });
  if (!target || target.teamId !== teamId) throw new RpcError('not_found', 'No such member in this team.');
  return target;
}

/**
 * The acting member as they are once the team is locked: a role checked before the lock could
 * have been taken away meanwhile by a concurrent change (an Owner demoted, then promoting
 * someone).
 */
async function actingUnderLock(tx: Prisma.TransactionClient, memberId: string) {
  const acting = await tx.member.findUnique({ where: { id: memberId } });
  if (!acting) throw sessionInvalid();
  return acting;
}

async function ensureAnotherOwner(tx: Prisma.TransactionClient, teamId: string, leavingOwnerId: string) {
  const others = await tx.member.count({ where: { teamId, role: 'owner', id: { not: leavingOwnerId } } });
  if (others === 0) throw new RpcError('last_owner', 'A team keeps at least one Owner. Make someone else Owner first.');
}
