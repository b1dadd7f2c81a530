import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { roleName } from '../../app/names';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, fieldError, formError } from '../../components/error-notice';
import { Field } from '../../components/field';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import type { Session } from '../../session/session-store';
import { useSignedIn } from '../../session/use-session';
import { TableScroll } from '../../components/table-scroll';
import { PlanSection } from './plan-section';

type Role = Session['member']['role'];

export function TeamPage() {
  const session = useSignedIn();
  return (
    <Page title="Team">
      <PlanSection session={session} />
      <MembersSection session={session} />
    </Page>
  );
}

type Member = NonNullable<Awaited<ReturnType<typeof listMembers>>>['items'][number];
const listMembers = () => unwrap(api.GET('/dashboard/v1/members'));

/** Who may do what to members: Owners anything, Admins add and remove Members only. */
function allowed(acting: Session['member'], target?: Member) {
  const isOwner = acting.role === 'owner';
  return {
    add: isOwner || acting.role === 'admin',
    addRoles: (isOwner ? ['member', 'admin', 'owner'] : ['member']) as Role[],
    changeRole: isOwner,
    remove: target ? target.id !== acting.id && (isOwner || (acting.role === 'admin' && target.role === 'member')) : false,
  };
}

function MembersSection({ session }: { session: Session }) {
  const members = useQuery({ queryKey: ['members'], queryFn: listMembers });
  const may = allowed(session.member);
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members</h2>
      {members.isPending ? <Loading what="members" /> : null}
      <ErrorNotice error={members.error} onRetry={() => members.refetch()} />
      {members.data ? (
        <TableScroll label="Members">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.items.map((member) => (
                // Keyed by the role too: a role changed elsewhere resets the row's choice.
                <MemberRow key={`${member.id}:${member.role}`} member={member} acting={session.member} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      {may.add ? <AddMember roles={may.addRoles} /> : null}
    </section>
  );
}

function MemberRow({ member, acting }: { member: Member; acting: Session['member'] }) {
  const queryClient = useQueryClient();
  const may = allowed(acting, member);
  const [role, setRole] = useState<Role>(member.role);
  const [confirming, setConfirming] = useState(false);
  // The session too: a member whose own role changed sees the menus of the new one at once.
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: ['members'] }), queryClient.invalidateQueries({ queryKey: ['session'] })]);
  const changeRole = useMutation({
    mutationFn: () => unwrap(api.PATCH('/dashboard/v1/members/{memberId}', { params: { path: { memberId: member.id } }, body: { role } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/dashboard/v1/members/{memberId}', { params: { path: { memberId: member.id } } })),
    onSuccess: () => {
      setConfirming(false);
      return refresh();
    },
  });
  const isSelf = member.id === acting.id;
  return (
    <tr>
      <th scope="row">
        {member.name}
        {isSelf ? ' (you)' : ''}
      </th>
      <td>{member.email}</td>
      <td>
        {may.changeRole ? (
          <form
            className="row-form"
            onSubmit={(event) => {
              event.preventDefault();
              changeRole.mutate();
            }}
          >
            <label className="visually-hidden" htmlFor={`role-${member.id}`}>
              Role of {member.name}
            </label>
            <select id={`role-${member.id}`} value={role} onChange={(event) => setRole(event.target.value as Role)}>
              {(['owner', 'admin', 'member'] as const).map((choice) => (
                <option key={choice} value={choice}>
                  {roleName(choice)}
                </option>
              ))}
            </select>
            {role !== member.role ? (
              <button type="submit" className="button-secondary button-small" disabled={changeRole.isPending}>
                Save role
              </button>
            ) : null}
          </form>
        ) : (
          roleName(member.role)
        )}
        <ErrorNotice error={changeRole.error} onRetry={() => changeRole.mutate()} />
      </td>
      <td>
        <RelativeTime value={member.created_at} />
      </td>
      <td>
        {may.remove ? (
          <button type="button" className="button-danger button-small" onClick={() => setConfirming(true)}>
            Remove<span className="visually-hidden"> {member.name}</span>
          </button>
        ) : null}
        <ConfirmDialog
          open={confirming}
          title={`Remove ${member.name}?`}
          confirmLabel="Remove member"
          destructive
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            {member.name} ({member.email}) loses access to the team at once. Their past actions stay in the audit trail.
          </p>
          <ErrorNotice error={remove.error} />
        </ConfirmDialog>
      </td>
    </tr>
  );
}

function AddMember({ roles }: { roles: Role[] }) {
  const queryClient = useQueryClient();
  const empty = { name: '', email: '', password: '', role: 'member' as Role };
  const [form, setForm] = useState(empty);
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/members', { body: form })),
    onSuccess: () => {
      setForm(empty);
      return queryClient.invalidateQueries({ queryKey: ['members'] });
    },
  });
  const set = (field: 'name' | 'email' | 'password') => (event: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [field]: event.target.value });
  return (
    <form
      className="stacked-form"
      aria-labelledby="add-member"
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate();
      }}
    >
      <h3 id="add-member">Add a member</h3>
      <Field label="Name" required value={form.name} onChange={set('name')} error={fieldError(add.error, 'name')} />
      <Field label="Email" type="email" required value={form.email} onChange={set('email')} error={fieldError(add.error, 'email')} />
      <Field
        label="First password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 12 characters. Give it to them in person or through your password manager."
        value={form.password}
        onChange={set('password')}
        error={fieldError(add.error, 'password')}
      />
      <div className="field">
        <label htmlFor="new-member-role">Role</label>
        <select id="new-member-role" value={form.role} onChange={(event) => setForm({ ...form, role: event.target.value as Role })}>
          {roles.map((role) => (
            <option key={role} value={role}>
              {roleName(role)}
            </option>
          ))}
        </select>
      </div>
      <ErrorNotice error={formError(add.error, ['name', 'email', 'password'])} onRetry={() => add.mutate()} />
      <button type="submit" className="button-primary" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add member'}
      </button>
    </form>
  );
}
