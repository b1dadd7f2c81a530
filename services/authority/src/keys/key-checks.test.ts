import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashSecretKey } from '@feedback/keys';
import { authorityCommands } from '../testing/authority-commands.js';
import { verifySecretKey } from './verify-secret-key.js';

let authority: Awaited<ReturnType<typeof authorityCommands>>;
let verify: ReturnType<typeof verifySecretKey>;

beforeAll(async () => {
  authority = await authorityCommands();
  verify = verifySecretKey(authority.prisma);
}, 60_000);

afterAll(async () => {
  await authority?.close();
});

/** The RPC error code a command was refused with. */
async function refusal(command: Promise<unknown>): Promise<string> {
  return command.then(
    () => 'done',
    (error: { code?: string }) => error.code ?? String(error),
  );
}

/** An Owner's team on Starter, with one app whose key was rotated, so its value is known. */
async function teamWithKey() {
  const owner = await authority.ownerOfNewTeam();
  await authority.prisma.team.update({ where: { id: owner.team.id }, data: { plan: 'starter' } });
  const created = await authority.keys.createApp({ session: owner.session, name: 'Acme iOS' });
  const rotated = await authority.keys.rotateKey({ session: owner.session, app_id: created.app.id }, authority.patientCall);
  return { owner, app: created.app, secretKey: rotated.secret_key };
}

describe('checking a secret key', () => {
  it("answers an active key's app, team, plan and scopes", async () => {
    const { owner, app, secretKey } = await teamWithKey();
    const answer = await verify({ key_hash: hashSecretKey(secretKey) });
    expect(answer).toMatchObject({ app: { id: app.id, public_key: app.public_key }, team_id: owner.team.id, plan: 'starter', full_access: false });
    expect(answer.scopes).toEqual(expect.arrayContaining(['suggestions:read', 'tickets:read']));
  });

  it('refuses a key no app has as unknown_key', async () => {
    expect(await refusal(verify({ key_hash: hashSecretKey('sk_live_no_such_key') }))).toBe('unknown_key');
  });

  it('refuses a revoked key as revoked_key, and answers it again once restored', async () => {
    const { owner, app, secretKey } = await teamWithKey();
    await authority.keys.revokeKey({ session: owner.session, app_id: app.id });
    expect(await refusal(verify({ key_hash: hashSecretKey(secretKey) }))).toBe('revoked_key');
    await authority.keys.restoreKey({ session: owner.session, app_id: app.id });
    expect(await refusal(verify({ key_hash: hashSecretKey(secretKey) }))).toBe('done');
  });

  it('refuses the value a rotation replaced as unknown_key', async () => {
    const { owner, app, secretKey } = await teamWithKey();
    await authority.keys.rotateKey({ session: owner.session, app_id: app.id }, authority.patientCall);
    expect(await refusal(verify({ key_hash: hashSecretKey(secretKey) }))).toBe('unknown_key');
  });

  it("answers the team's plan as it is now", async () => {
    const { owner, secretKey } = await teamWithKey();
    await authority.prisma.team.update({ where: { id: owner.team.id }, data: { plan: 'pro' } });
    expect((await verify({ key_hash: hashSecretKey(secretKey) })).plan).toBe('pro');
  });
});

describe('checking a public key', () => {
  it("answers the app's team and plan", async () => {
    const { owner, app } = await teamWithKey();
    expect(await authority.keys.verifyPublicKey({ public_key: app.public_key })).toEqual({ app: { id: app.id, public_key: app.public_key }, team_id: owner.team.id, plan: 'starter' });
  });

  it('refuses a public key no app has as unknown_key', async () => {
    expect(await refusal(authority.keys.verifyPublicKey({ public_key: 'pk_live_0000000000000000000000' }))).toBe('unknown_key');
  });
});
