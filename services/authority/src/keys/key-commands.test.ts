import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashSecretKey } from '@feedback/keys';
import { authorityCommands } from '../testing/authority-commands.js';

let authority: Awaited<ReturnType<typeof authorityCommands>>;

beforeAll(async () => {
  authority = await authorityCommands();
}, 60_000);

afterAll(async () => {
  await authority?.close();
});

/** An Owner's team moved to Pro, with one app; its key as stored. */
async function teamWithApp() {
  const owner = await authority.ownerOfNewTeam();
  await authority.prisma.team.update({ where: { id: owner.team.id }, data: { plan: 'pro' } });
  const created = await authority.keys.createApp({ session: owner.session, name: 'Acme iOS' });
  const stored = () => authority.prisma.apiKey.findUniqueOrThrow({ where: { appId: created.app.id } });
  const audit = async () => (await authority.keys.listKeyAudit({ session: owner.session, app_id: created.app.id })).items.map((entry) => [entry.action, entry.scopes]);
  return { owner, appId: created.app.id, key: created.api_key, stored, audit };
}

async function refusal(command: Promise<unknown>): Promise<string> {
  return command.then(
    () => 'done',
    (error: { code?: string }) => error.code ?? String(error),
  );
}

describe('a new app', () => {
  it('has a key that can read suggestions and tickets and nothing more, its creation in the audit trail', async () => {
    const { key, audit } = await teamWithApp();
    expect({ scopes: key.scopes, full_access: key.full_access, status: key.status }).toEqual({ scopes: ['suggestions:read', 'tickets:read'], full_access: false, status: 'active' });
    expect(await audit()).toEqual([['created', ['suggestions:read', 'tickets:read']]]);
  });
});

describe('scopes', () => {
  it('grants and removes scopes, each change in the audit trail and told to the api instances', async () => {
    const { owner, appId, key, audit } = await teamWithApp();
    const before = authority.keyChanges.length;
    await authority.keys.changeKeyScopes({ session: owner.session, app_id: appId, grant: ['suggestions:write'], remove: ['tickets:read'] });
    const now = await authority.keys.getApiKey({ session: owner.session, app_id: appId });
    expect(now.scopes.sort()).toEqual(['suggestions:read', 'suggestions:write']);
    expect((await audit()).slice(0, 2).sort()).toEqual([
      ['scopes_granted', ['suggestions:write']],
      ['scopes_removed', ['tickets:read']],
    ]);
    expect(authority.keyChanges.slice(before)).toEqual([{ key_ids: [expect.any(String)], reason: 'scopes_changed' }]);
    expect(key.app_id).toBe(appId);
  });

  it('applies every one of several changes made at the same moment', async () => {
    const { owner, appId } = await teamWithApp();
    await Promise.all(
      (['suggestions:write', 'tickets:write', 'analytics:read', 'privacy:read'] as const).map((scope) =>
        authority.keys.changeKeyScopes({ session: owner.session, app_id: appId, grant: [scope] }),
      ),
    );
    const now = await authority.keys.getApiKey({ session: owner.session, app_id: appId });
    expect(now.scopes.sort()).toEqual(['analytics:read', 'privacy:read', 'suggestions:read', 'suggestions:write', 'tickets:read', 'tickets:write']);
  });

  it('gives Full access as a flag of its own, leaving the listed scopes as they were', async () => {
    const { owner, appId, audit } = await teamWithApp();
    const now = await authority.keys.changeKeyScopes({ session: owner.session, app_id: appId, full_access: true });
    expect({ full_access: now.full_access, scopes: now.scopes }).toEqual({ full_access: true, scopes: ['suggestions:read', 'tickets:read'] });
    expect((await audit())[0]).toEqual(['full_access_granted', []]);
  });
});

describe('revoke, restore and rotate', () => {
  it('records a revocation once, however often it is pressed, and tells the api instances each time', async () => {
    const { owner, appId, audit } = await teamWithApp();
    const before = authority.keyChanges.length;
    await authority.keys.revokeKey({ session: owner.session, app_id: appId });
    await authority.keys.revokeKey({ session: owner.session, app_id: appId });
    expect((await audit()).filter(([action]) => action === 'revoked')).toHaveLength(1);
    expect(authority.keyChanges.slice(before).map((change) => change.reason)).toEqual(['revoked', 'revoked']);
  });

  it('restores the very same key', async () => {
    const { owner, appId, stored } = await teamWithApp();
    const hashBefore = (await stored()).keyHash;
    await authority.keys.revokeKey({ session: owner.session, app_id: appId });
    const restored = await authority.keys.restoreKey({ session: owner.session, app_id: appId });
    expect(restored.status).toBe('active');
    expect((await stored()).keyHash).toBe(hashBefore);
  });

  it('rotates to a new key with the same scopes, whose hash alone is kept', async () => {
    const { owner, appId, stored } = await teamWithApp();
    await authority.keys.changeKeyScopes({ session: owner.session, app_id: appId, grant: ['suggestions:write'] });
    const hashBefore = (await stored()).keyHash;
    const rotated = await authority.keys.rotateKey({ session: owner.session, app_id: appId }, authority.patientCall);
    const after = await stored();
    expect(after.keyHash).not.toBe(hashBefore);
    expect(after.keyHash).toBe(hashSecretKey(rotated.secret_key));
    expect(rotated.api_key.scopes.sort()).toEqual(['suggestions:read', 'suggestions:write', 'tickets:read']);
    expect(rotated.api_key.display_prefix).toBe(after.displayPrefix);
  });

  it('rotates a revoked key into an active one, the revoked value never coming back', async () => {
    const { owner, appId, stored } = await teamWithApp();
    await authority.keys.revokeKey({ session: owner.session, app_id: appId });
    const revokedHash = (await stored()).keyHash;
    const rotated = await authority.keys.rotateKey({ session: owner.session, app_id: appId }, authority.patientCall);
    expect(rotated.api_key.status).toBe('active');
    expect((await stored()).keyHash).not.toBe(revokedHash);
  });
});

describe('who may manage keys', () => {
  it('refuses a Member every view and change of the key', async () => {
    const { owner, appId } = await teamWithApp();
    const member = await authority.memberOf(owner, 'member');
    const session = member.session;
    const commands = [
      () => authority.keys.getApiKey({ session, app_id: appId }),
      () => authority.keys.listKeyAudit({ session, app_id: appId }),
      () => authority.keys.changeKeyScopes({ session, app_id: appId, grant: ['privacy:write'] }),
      () => authority.keys.revokeKey({ session, app_id: appId }),
      () => authority.keys.restoreKey({ session, app_id: appId }),
      () => authority.keys.rotateKey({ session, app_id: appId }, authority.patientCall),
      () => authority.keys.createApp({ session, name: 'Mine' }),
    ];
    for (const command of commands) expect(await refusal(command())).toBe('insufficient_role');
  });

  it('lets an Admin manage the key', async () => {
    const { owner, appId } = await teamWithApp();
    const admin = await authority.memberOf(owner, 'admin');
    expect(await refusal(authority.keys.revokeKey({ session: admin.session, app_id: appId }))).toBe('done');
  });

  it("answers another team's app as one that does not exist", async () => {
    const { appId } = await teamWithApp();
    const stranger = await authority.ownerOfNewTeam();
    expect(await refusal(authority.keys.getApiKey({ session: stranger.session, app_id: appId }))).toBe('not_found');
    expect(await refusal(authority.keys.revokeKey({ session: stranger.session, app_id: appId }))).toBe('not_found');
  });
});
