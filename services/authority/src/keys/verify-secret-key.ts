import type { RpcRequest, RpcResult, Scope } from '@feedback/contracts';
import { RpcError } from '@feedback/messaging';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * Answers "authority.verifySecretKey": which app a key hash belongs to, with the team's plan and
 * the key's scopes. Unknown and revoked keys are distinct codes so the api can say which.
 */
export function verifySecretKey(prisma: PrismaClient) {
  return async ({ key_hash }: RpcRequest<'authority.verifySecretKey'>): Promise<RpcResult<'authority.verifySecretKey'>> => {
    const key = await prisma.apiKey.findUnique({
      where: { keyHash: key_hash },
      include: { app: { include: { team: true } } },
    });
    if (!key) throw new RpcError('unknown_key', 'No API key matches.');
    if (key.status === 'revoked') throw new RpcError('revoked_key', 'This API key has been revoked.');
    return {
      key_id: key.id,
      app: { id: key.app.id, public_key: key.app.publicKey },
      team_id: key.app.teamId,
      plan: key.app.team.plan,
      scopes: key.scopes as Scope[],
      full_access: key.fullAccess,
    };
  };
}
