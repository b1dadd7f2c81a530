import type { RpcRequest } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import type { Member, PrismaClient } from '../generated/prisma/client.js';

type Actor = RpcRequest<'authority.listMembers'>['actor'];
export type Role = Member['role'];

/**
 * Loads the acting member afresh on every command: a role changed or a member removed takes
 * effect at once, whatever an older session token says.
 */
export async function loadActor(prisma: PrismaClient, actor: Actor): Promise<Member> {
  const member = await prisma.member.findUnique({ where: { id: actor.member_id } });
  if (!member || member.teamId !== actor.team_id) throw new RpcError('session_invalid', 'This session no longer matches a member. Sign in again.');
  return member;
}

/** Specification 1.4: only Owners and Admins view or manage API keys and webhook endpoints. */
export function requireRole(member: Member, allowed: readonly Role[], what: string): void {
  if (!allowed.includes(member.role)) {
    throw new RpcError('insufficient_role', `Only ${allowed.join(' or ')} members can ${what}.`);
  }
}

export const KEY_MANAGERS: readonly Role[] = ['owner', 'admin'];
