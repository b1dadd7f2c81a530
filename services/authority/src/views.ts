import type { ApiKey, App, KeyAuditEntry, Member, Team } from './generated/prisma/client.js';
import type { Scope } from '@feedback/contracts';

/** What the dashboard sees of each record: never a password hash, a key or a key hash. */
export const memberView = (member: Member) => ({
  id: member.id,
  email: member.email,
  name: member.name,
  role: member.role,
  created_at: member.createdAt.toISOString(),
});

export const teamView = (team: Team) => ({ id: team.id, name: team.name, plan: team.plan, created_at: team.createdAt.toISOString() });

export const appView = (app: App) => ({ id: app.id, name: app.name, public_key: app.publicKey, created_at: app.createdAt.toISOString() });

export const apiKeyView = (key: ApiKey) => ({
  app_id: key.appId,
  display_prefix: key.displayPrefix,
  scopes: key.scopes as Scope[],
  full_access: key.fullAccess,
  status: key.status,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  created_at: key.createdAt.toISOString(),
  rotated_at: key.rotatedAt?.toISOString() ?? null,
});

export const keyAuditView = (entry: KeyAuditEntry) => ({
  id: entry.id,
  action: entry.action,
  actor: { member_id: entry.memberId, name: entry.actorName },
  scopes: entry.scopes as Scope[],
  created_at: entry.createdAt.toISOString(),
});
