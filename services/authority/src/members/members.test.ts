import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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

describe('sign-up and sign-in', () => {
  it('makes the new team Free with the person signing up as its Owner', async () => {
    const owner = await authority.ownerOfNewTeam();
    expect(owner.team.plan).toBe('free');
    expect(owner.member.role).toBe('owner');
  });

  it('refuses a second account with the same email, whatever its case and spaces', async () => {
    const owner = await authority.ownerOfNewTeam();
    const again = authority.members.signUp({ team_name: 'Other', name: 'Copy', email: `  ${owner.email.toUpperCase()} `, password: 'a long enough password' });
    expect(await refusal(again)).toBe('email_taken');
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const owner = await authority.ownerOfNewTeam();
    expect(await refusal(authority.members.signIn({ email: owner.email, password: 'not the password' }))).toBe('invalid_credentials');
    expect(await refusal(authority.members.signIn({ email: 'nobody@example.com', password: 'not the password' }))).toBe('invalid_credentials');
  });
});

describe('adding members', () => {
  it('lets an Admin add Members but neither Admins nor Owners', async () => {
    const owner = await authority.ownerOfNewTeam();
    const admin = await authority.memberOf(owner, 'admin');
    const added = authority.members.addMember({ session: admin.session, name: 'New', email: `new-${Date.now()}@example.com`, password: 'a long enough password', role: 'member' });
    expect(await refusal(added)).toBe('done');
    for (const role of ['admin', 'owner'] as const) {
      const refused = authority.members.addMember({ session: admin.session, name: 'New', email: `${role}-${Date.now()}@example.com`, password: 'a long enough password', role });
      expect(await refusal(refused)).toBe('insufficient_role');
    }
  });

  it('refuses an email another member has, in this team or another, whatever its case', async () => {
    const owner = await authority.ownerOfNewTeam();
    const elsewhere = await authority.ownerOfNewTeam();
    for (const email of [owner.email.toUpperCase(), elsewhere.email]) {
      const refused = authority.members.addMember({ session: owner.session, name: 'Copy', email, password: 'a long enough password', role: 'member' });
      expect(await refusal(refused)).toBe('email_taken');
    }
  });

  it('refuses a Member who adds anyone', async () => {
    const owner = await authority.ownerOfNewTeam();
    const member = await authority.memberOf(owner, 'member');
    const refused = authority.members.addMember({ session: member.session, name: 'New', email: `new-${Date.now()}@example.com`, password: 'a long enough password', role: 'member' });
    expect(await refusal(refused)).toBe('insufficient_role');
  });
});

describe('changing roles', () => {
  it('lets only an Owner change a role', async () => {
    const owner = await authority.ownerOfNewTeam();
    const admin = await authority.memberOf(owner, 'admin');
    const member = await authority.memberOf(owner, 'member');
    expect(await refusal(authority.members.changeRole({ session: admin.session, member_id: member.member.id, role: 'admin' }))).toBe('insufficient_role');
    const promoted = await authority.members.changeRole({ session: owner.session, member_id: member.member.id, role: 'admin' });
    expect(promoted.role).toBe('admin');
  });

  it('keeps the last Owner an Owner, and lets one of two step down', async () => {
    const owner = await authority.ownerOfNewTeam();
    expect(await refusal(authority.members.changeRole({ session: owner.session, member_id: owner.member.id, role: 'admin' }))).toBe('last_owner');
    const second = await authority.memberOf(owner, 'owner');
    const steppedDown = await authority.members.changeRole({ session: owner.session, member_id: owner.member.id, role: 'admin' });
    expect(steppedDown.role).toBe('admin');
    expect(await refusal(authority.members.changeRole({ session: second.session, member_id: second.member.id, role: 'member' }))).toBe('last_owner');
  });

  it('takes a demotion into account at the demoted member’s next command, whatever their token says', async () => {
    const owner = await authority.ownerOfNewTeam();
    const admin = await authority.memberOf(owner, 'admin');
    await authority.members.changeRole({ session: owner.session, member_id: admin.member.id, role: 'member' });
    const refused = authority.members.addMember({ session: admin.session, name: 'New', email: `new-${Date.now()}@example.com`, password: 'a long enough password', role: 'member' });
    expect(await refusal(refused)).toBe('insufficient_role');
  });

  it('does not reach a member of another team', async () => {
    const owner = await authority.ownerOfNewTeam();
    const stranger = await authority.memberOf(await authority.ownerOfNewTeam(), 'member');
    expect(await refusal(authority.members.changeRole({ session: owner.session, member_id: stranger.member.id, role: 'admin' }))).toBe('not_found');
  });
});

describe('removing members', () => {
  it('lets an Admin remove a Member but not an Admin', async () => {
    const owner = await authority.ownerOfNewTeam();
    const admin = await authority.memberOf(owner, 'admin');
    const otherAdmin = await authority.memberOf(owner, 'admin');
    const member = await authority.memberOf(owner, 'member');
    expect(await refusal(authority.members.removeMember({ session: admin.session, member_id: otherAdmin.member.id }))).toBe('insufficient_role');
    expect(await refusal(authority.members.removeMember({ session: admin.session, member_id: member.member.id }))).toBe('done');
  });

  it('never removes the last Owner', async () => {
    const owner = await authority.ownerOfNewTeam();
    expect(await refusal(authority.members.removeMember({ session: owner.session, member_id: owner.member.id }))).toBe('last_owner');
  });

  it('refuses a Member who removes anyone', async () => {
    const owner = await authority.ownerOfNewTeam();
    const member = await authority.memberOf(owner, 'member');
    const other = await authority.memberOf(owner, 'member');
    expect(await refusal(authority.members.removeMember({ session: member.session, member_id: other.member.id }))).toBe('insufficient_role');
  });

  it('does not reach a member of another team', async () => {
    const owner = await authority.ownerOfNewTeam();
    const stranger = await authority.memberOf(await authority.ownerOfNewTeam(), 'member');
    expect(await refusal(authority.members.removeMember({ session: owner.session, member_id: stranger.member.id }))).toBe('not_found');
  });

  it('ends a removed member’s sessions at once', async () => {
    const owner = await authority.ownerOfNewTeam();
    const member = await authority.memberOf(owner, 'member');
    await authority.members.removeMember({ session: owner.session, member_id: member.member.id });
    expect(await refusal(authority.members.listMembers({ session: member.session }))).toBe('session_invalid');
  });
});
