import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { authorityCommands } from '../testing/authority-commands.js';

let authority: Awaited<ReturnType<typeof authorityCommands>>;

beforeAll(async () => {
  authority = await authorityCommands();
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

/** An Owner's team on Pro, with one app. */
async function teamWithApp() {
  const owner = await authority.ownerOfNewTeam();
  await authority.prisma.team.update({ where: { id: owner.team.id }, data: { plan: 'pro' } });
  const created = await authority.keys.createApp({ session: owner.session, name: 'Acme iOS' });
  return { owner, app: created.app };
}

describe('seeing an app', () => {
  it('shows the app to every member of its team, a Member included', async () => {
    const { owner, app } = await teamWithApp();
    const member = await authority.memberOf(owner, 'member');
    expect((await authority.keys.getApp({ session: member.session, app_id: app.id })).id).toBe(app.id);
    expect((await authority.keys.listApps({ session: member.session })).items.map((listed) => listed.id)).toEqual([app.id]);
  });

  it("answers another team's app as one that does not exist", async () => {
    const { app } = await teamWithApp();
    const stranger = await authority.ownerOfNewTeam();
    expect(await refusal(authority.keys.getApp({ session: stranger.session, app_id: app.id }))).toBe('not_found');
  });
});

describe('managing webhook endpoints', () => {
  it("grants an Owner or an Admin the app, the team's plan and a grant signed over them", async () => {
    const { owner, app } = await teamWithApp();
    const admin = await authority.memberOf(owner, 'admin');
    for (const acting of [owner, admin]) {
      const granted = await authority.keys.authorizeWebhookManagement({ session: acting.session, app_id: app.id });
      expect(granted).toMatchObject({ app: { id: app.id, public_key: app.public_key }, team_id: owner.team.id, plan: 'pro' });
      expect(decodeJwt(granted.grant)).toMatchObject({ sub: acting.member.id, team_id: owner.team.id, app_id: app.id, plan: 'pro' });
    }
  });

  it('refuses a Member as insufficient_role', async () => {
    const { owner, app } = await teamWithApp();
    const member = await authority.memberOf(owner, 'member');
    expect(await refusal(authority.keys.authorizeWebhookManagement({ session: member.session, app_id: app.id }))).toBe('insufficient_role');
  });

  it("answers another team's app as one that does not exist", async () => {
    const { app } = await teamWithApp();
    const stranger = await authority.ownerOfNewTeam();
    expect(await refusal(authority.keys.authorizeWebhookManagement({ session: stranger.session, app_id: app.id }))).toBe('not_found');
  });

  it("grants the team's plan as it is now, Free included: what Free may do is the caller's to decide", async () => {
    const { owner, app } = await teamWithApp();
    await authority.prisma.team.update({ where: { id: owner.team.id }, data: { plan: 'free' } });
    expect((await authority.keys.authorizeWebhookManagement({ session: owner.session, app_id: app.id })).plan).toBe('free');
  });
});
