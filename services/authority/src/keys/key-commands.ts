import type { RpcRequest, RpcResult, Scope } from '@feedback/contracts';
import { generatePublicKey, generateSecretKey } from '@feedback/keys';
import { RpcError } from '@feedback/messaging';
import type { RpcCall } from '@feedback/messaging';
import type { KeyAction, Prisma, PrismaClient } from '../generated/prisma/client.js';
import { KEY_MANAGERS, requireRole } from '../access/actor.js';
import type { MemberAccess } from '../access/actor.js';
import { apiKeyView, appView, keyAuditView } from '../views.js';
import type { SessionSigner } from '../members/session-tokens.js';
import type { KeyChangeNotifier } from './key-change-notifier.js';

/** Specification 2.2 rule 1: a new app's key can read, and nothing more, until a member grants more. */
export const NEW_KEY_SCOPES: readonly Scope[] = ['suggestions:read', 'tickets:read'];

export function keyCommands(prisma: PrismaClient, access: MemberAccess, notifier: KeyChangeNotifier, signer: SessionSigner) {
  /** The acting member, if allowed to manage keys, and the app's key, if the app is theirs. */
  async function authorize(session: string, appId: number, what: string) {
    const member = await access.loadActor(session);
    requireRole(member, KEY_MANAGERS, what);
    const key = await prisma.apiKey.findFirst({ where: { appId, app: { teamId: member.teamId } } });
    if (!key) throw new RpcError('not_found', 'No such app in this team.');
    return { member, key };
  }

  const audit = (
    tx: Prisma.TransactionClient,
    member: { id: string; name: string },
    appId: number,
    action: KeyAction,
    scopes: string[] = [],
  ) => tx.keyAuditEntry.create({ data: { appId, memberId: member.id, actorName: member.name, action, scopes } });

  /** The key as it is now, locked until the transaction ends, for changes computed from it. */
  async function lockKey(tx: Prisma.TransactionClient, keyId: string) {
    await tx.$executeRaw`SELECT 1 FROM authority.api_keys WHERE id = ${keyId}::uuid FOR UPDATE`;
    return tx.apiKey.findUniqueOrThrow({ where: { id: keyId } });
  }

  return {
    async listApps({ session }: RpcRequest<'authority.listApps'>): Promise<RpcResult<'authority.listApps'>> {
      const member = await access.loadActor(session);
      const apps = await prisma.app.findMany({ where: { teamId: member.teamId }, orderBy: { id: 'asc' } });
      return { items: apps.map(appView) };
    },

    async getApp({ session, app_id }: RpcRequest<'authority.getApp'>): Promise<RpcResult<'authority.getApp'>> {
      const member = await access.loadActor(session);
      const app = await prisma.app.findFirst({ where: { id: app_id, teamId: member.teamId } });
      if (!app) throw new RpcError('not_found', 'No such app in this team.');
      return appView(app);
    },

    async authorizeWebhookManagement({ session, app_id }: RpcRequest<'authority.authorizeWebhookManagement'>): Promise<RpcResult<'authority.authorizeWebhookManagement'>> {
      const member = await access.loadActor(session);
      requireRole(member, KEY_MANAGERS, 'manage webhook endpoints');
      const app = await prisma.app.findFirst({ where: { id: app_id, teamId: member.teamId }, include: { team: true } });
      if (!app) throw new RpcError('not_found', 'No such app in this team.');
      const { plan, planVersion } = app.team;
      const grant = await signer.signGrant({ teamId: app.teamId, appId: app.id, publicKey: app.publicKey, plan, planVersion, memberId: member.id });
      return { app: { id: app.id, public_key: app.publicKey }, team_id: app.teamId, plan, plan_version: planVersion, grant };
    },

    async verifyPublicKey({ public_key }: RpcRequest<'authority.verifyPublicKey'>): Promise<RpcResult<'authority.verifyPublicKey'>> {
      const app = await prisma.app.findUnique({ where: { publicKey: public_key }, include: { team: true } });
      if (!app) throw new RpcError('unknown_key', 'No app has this public key.');
      return { app: { id: app.id, public_key: app.publicKey }, team_id: app.teamId, plan: app.team.plan };
    },

    async createApp({ session, name }: RpcRequest<'authority.createApp'>): Promise<RpcResult<'authority.createApp'>> {
      const member = await access.loadActor(session);
      requireRole(member, KEY_MANAGERS, 'create apps');
      // The app's key exists from the start (with the scopes of a new key), but its value is shown
      // to no one: specification 2.2 shows a key in full only at rotation, so rotating is how a
      // team gets its first key.
      const secret = generateSecretKey();
      return prisma.$transaction(async (tx) => {
        const app = await tx.app.create({
          data: {
            teamId: member.teamId,
            name,
            publicKey: generatePublicKey(),
            apiKey: { create: { keyHash: secret.hash, displayPrefix: secret.displayPrefix, scopes: [...NEW_KEY_SCOPES] } },
          },
          include: { apiKey: true },
        });
        await audit(tx, member, app.id, 'created', [...NEW_KEY_SCOPES]);
        return { app: appView(app), api_key: apiKeyView(app.apiKey!) };
      });
    },

    async getApiKey({ session, app_id }: RpcRequest<'authority.getApiKey'>): Promise<RpcResult<'authority.getApiKey'>> {
      const { key } = await authorize(session, app_id, 'view API keys');
      return apiKeyView(key);
    },

    async changeKeyScopes(request: RpcRequest<'authority.changeKeyScopes'>): Promise<RpcResult<'authority.changeKeyScopes'>> {
      const { member, key } = await authorize(request.session, request.app_id, 'change API key scopes');
      const updated = await prisma.$transaction(async (tx) => {
        // Computed from the locked row, so two concurrent changes both survive and each audits what it changed.
        const locked = await lockKey(tx, key.id);
        const current = new Set(locked.scopes);
        const granted = (request.grant ?? []).filter((scope) => !current.has(scope));
        const removed = (request.remove ?? []).filter((scope) => current.has(scope));
        const scopes = [...current].filter((scope) => !removed.includes(scope as Scope)).concat(granted);
        const fullAccess = request.full_access ?? locked.fullAccess;
        if (granted.length > 0) await audit(tx, member, key.appId, 'scopes_granted', granted);
        if (removed.length > 0) await audit(tx, member, key.appId, 'scopes_removed', removed);
        if (fullAccess !== locked.fullAccess) await audit(tx, member, key.appId, fullAccess ? 'full_access_granted' : 'full_access_removed');
        return tx.apiKey.update({ where: { id: key.id }, data: { scopes, fullAccess } });
      });
      // Also when nothing changed: a retry after "propagation_unconfirmed" finds the change saved and must confirm it.
      await notifier.notify({ key_ids: [key.id], reason: 'scopes_changed' });
      return apiKeyView(updated);
    },

    async revokeKey({ session, app_id }: RpcRequest<'authority.revokeKey'>): Promise<RpcResult<'authority.revokeKey'>> {
      const { member, key } = await authorize(session, app_id, 'revoke API keys');
      const updated = await prisma.$transaction(async (tx) => {
        // The trail records what changed: a second press, or a retry, revokes nothing new.
        if ((await lockKey(tx, key.id)).status !== 'revoked') await audit(tx, member, key.appId, 'revoked');
        return tx.apiKey.update({ where: { id: key.id }, data: { status: 'revoked' } });
      });
      // Also when it was revoked already: a retry after "propagation_unconfirmed" confirms it.
      await notifier.notify({ key_ids: [key.id], reason: 'revoked' });
      return apiKeyView(updated);
    },

    async restoreKey({ session, app_id }: RpcRequest<'authority.restoreKey'>): Promise<RpcResult<'authority.restoreKey'>> {
      const { member, key } = await authorize(session, app_id, 'restore API keys');
      const updated = await prisma.$transaction(async (tx) => {
        if ((await lockKey(tx, key.id)).status !== 'active') await audit(tx, member, key.appId, 'restored');
        return tx.apiKey.update({ where: { id: key.id }, data: { status: 'active' } });
      });
      // Api instances remember a revoked key's refusal for a while: told, they forget it, so the
      // same key works at its next request. Also when it was active already (a retry confirms it).
      await notifier.notify({ key_ids: [key.id], reason: 'restored' });
      return apiKeyView(updated);
    },

    async rotateKey({ session, app_id }: RpcRequest<'authority.rotateKey'>, call: RpcCall): Promise<RpcResult<'authority.rotateKey'>> {
      const { member, key } = await authorize(session, app_id, 'rotate API keys');
      const secret = generateSecretKey();
      const updated = await prisma.$transaction(async (tx) => {
        // Locked first, so the trail lists a revocation at the same moment in the order it applied.
        await lockKey(tx, key.id);
        await audit(tx, member, key.appId, 'rotated');
        // A revoked key rotates too, into an active one: an admin who revoked a leaked key gets a
        // new one without bringing the leaked value back first. The revoked value stays unknown.
        const rotated = await tx.apiKey.update({
          where: { id: key.id },
          data: { keyHash: secret.hash, displayPrefix: secret.displayPrefix, status: 'active', rotatedAt: new Date() },
        });
        // The new key is shown only in this answer, and the old one stops working at the commit:
        // committed after the dashboard gave up (the notice to the api instances may take up to
        // its own time limit), every call of the team's integration would be refused with a key
        // nobody saw.
        call.throwIfCallerGone(notifier.timeoutMs);
        return rotated;
      });
      try {
        await notifier.notify({ key_ids: [key.id], reason: 'rotated' });
      } catch (error) {
        if (!(error instanceof RpcError && error.code === 'propagation_unconfirmed')) throw error;
        // The new key is committed and shown only here: a 503 would lose it, and a retry would
        // rotate again. The old key is refused wherever the change was confirmed, and by the
        // rest once their cache lease ends.
        return {
          api_key: apiKeyView(updated),
          secret_key: secret.secret,
          warning: {
            code: 'propagation_unconfirmed' as const,
            message:
              'The new key works now. Not every API server confirmed the change yet: those may accept the old key until their cached copy expires (KEY_CACHE_TTL_MS, a minute by default).',
          },
        };
      }
      return { api_key: apiKeyView(updated), secret_key: secret.secret };
    },

    async listKeyAudit({ session, app_id }: RpcRequest<'authority.listKeyAudit'>): Promise<RpcResult<'authority.listKeyAudit'>> {
      await authorize(session, app_id, 'view the key audit trail');
      const entries = await prisma.keyAuditEntry.findMany({ where: { appId: app_id }, orderBy: { createdAt: 'desc' }, take: 500 });
      return { items: entries.map(keyAuditView) };
    },
  };
}
