import { generateKeyPairSync } from 'node:crypto';
import type { KeyChange } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import type { RpcCall } from '@feedback/messaging';
import { createTestDatabase, resolveTestInfrastructure } from '@feedback/test-support';
import winston from 'winston';
import { memberAccess } from '../access/actor.js';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from '../database.js';
import type { Role } from '../access/actor.js';
import type { KeyChangeNotifier } from '../keys/key-change-notifier.js';
import { keyCommands } from '../keys/key-commands.js';
import { memberCommands } from '../members/members.js';
import { SessionSigner } from '../members/session-tokens.js';
import { sessionCommands } from '../members/sessions.js';

/**
 * The authority's commands on a migrated database of their own, called as the RPC server calls
 * them, for its own tests (left out of its build). Key changes are told to `keyChanges` instead
 * of the api instances: the broadcast itself is the end-to-end tests' subject.
 */
export async function authorityCommands() {
  const infrastructure = await resolveTestInfrastructure();
  const database = await createTestDatabase(infrastructure.postgresUrl);
  const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
  await migrateAuthorityDatabase(database.url, logger);
  const prisma = connectAuthorityDatabase(database.url);
  const signer = new SessionSigner(generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  const access = memberAccess(prisma, signer);
  const sessions = sessionCommands(prisma, signer, access, { ttlSeconds: 900, maxSeconds: 43_200 }, logger);
  const members = memberCommands(prisma, signer, access, sessions);
  const keyChanges: Array<Omit<KeyChange, 'change_id'>> = [];
  const notifier = { timeoutMs: 1000, notify: async (change: Omit<KeyChange, 'change_id'>) => void keyChanges.push(change) } as unknown as KeyChangeNotifier;
  const keys = keyCommands(prisma, access, notifier, signer);
  /** A caller that waits as long as it takes: no command is rolled back for lack of time here. */
  const patientCall = { remainingMs: () => 60_000, throwIfCallerGone: () => undefined } as unknown as RpcCall;
  let emails = 0;

  /** A team of its own, its Owner signed in. */
  async function ownerOfNewTeam() {
    const email = `owner-${Date.now()}-${++emails}@example.com`;
    const signedUp = await members.signUp({ team_name: 'Acme', name: 'Olive Owner', email, password: 'a long enough password' });
    return { session: signedUp.token, member: signedUp.member, team: signedUp.team, email };
  }

  /** A member of the Owner's team with `role`, signed in. */
  async function memberOf(owner: { session: string }, role: Role, name = `${role} ${++emails}`) {
    const email = `${role}-${Date.now()}-${emails}@example.com`;
    const added = await members.addMember({ session: owner.session, name, email, password: 'another long password', role });
    const signedIn = await members.signIn({ email, password: 'another long password' });
    return { session: signedIn.token, member: added, email };
  }

  return {
    prisma,
    members,
    keys,
    keyChanges,
    patientCall,
    ownerOfNewTeam,
    memberOf,
    async close() {
      await prisma.$disconnect();
      await database.drop();
      await infrastructure.stop();
    },
  };
}
