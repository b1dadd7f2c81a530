import type { Scope } from '@feedback/contracts';
import { generatePublicKey, generateSecretKey } from '@feedback/keys';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Plan } from '../generated/prisma/enums.js';

/** Specification 2.2 rule 1: a new app's key can read, and nothing more, until a member grants more. */
export const NEW_KEY_SCOPES: readonly Scope[] = ['suggestions:read', 'tickets:read'];

export async function createTeam(prisma: PrismaClient, input: { name: string; plan: Plan }) {
  return prisma.team.create({ data: { name: input.name, plan: input.plan } });
}

/**
 * Creates an app with its public key and its one secret key. The secret is returned here, once,
 * for the member to copy; only its hash is stored.
 */
export async function createApp(prisma: PrismaClient, input: { teamId: string; name: string }) {
  const key = generateSecretKey();
  const app = await prisma.app.create({
    data: {
      teamId: input.teamId,
      name: input.name,
      publicKey: generatePublicKey(),
      apiKey: { create: { keyHash: key.hash, displayPrefix: key.displayPrefix, scopes: [...NEW_KEY_SCOPES] } },
    },
  });
  return { app, secretKey: key.secret };
}
