import { useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, fieldError, formError } from '../../components/error-notice';
import { Field, useFocusFirstInvalid } from '../../components/field';
import { Page } from '../../components/page';
import { safeNext } from '../../app/require-session';
import { startSession } from '../../session/start-session';
import { useSession } from '../../session/use-session';

/** A new team on the Free plan, with the person signing up as its Owner. */
export function SignUpPage() {
  const session = useSession();
  const [search] = useSearchParams();
  const [form, setForm] = useState({ team_name: '', name: '', email: '', password: '' });
  const set = (field: keyof typeof form) => (event: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [field]: event.target.value });
  const signUp = useMutation({
    mutationFn: () => startSession(api.POST('/dashboard/v1/sign-up', { body: form })),
  });
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, signUp.error);
  if (session) return <Navigate to={safeNext(search.get('next'))} replace />;
  const error = (field: string) => fieldError(signUp.error, field);
  return (
    <main id="main" className="auth">
      <Page title="Create a team">
        <p>Your team starts on the Free plan, with you as its Owner. You can change the plan later.</p>
        <form
          ref={formRef}
          onSubmit={(event) => {
            event.preventDefault();
            signUp.mutate();
          }}
        >
          <Field label="Team name" required autoComplete="organization" value={form.team_name} onChange={set('team_name')} error={error('team_name')} />
          <Field label="Your name" required autoComplete="name" value={form.name} onChange={set('name')} error={error('name')} />
          <Field label="Email" type="email" required autoComplete="email" value={form.email} onChange={set('email')} error={error('email')} />
          <Field
            label="Password"
            type="password"
            required
            autoComplete="new-password"
            hint="At least 12 characters."
            value={form.password}
            onChange={set('password')}
            error={error('password')}
          />
          <ErrorNotice error={formError(signUp.error, ['team_name', 'name', 'email', 'password'])} onRetry={() => signUp.mutate()} />
          <button type="submit" className="button-primary" disabled={signUp.isPending}>
            {signUp.isPending ? 'Creating…' : 'Create team'}
          </button>
        </form>
        <p>
          Already have an account? <Link to={`/sign-in${search.size ? `?${search}` : ''}`}>Sign in</Link>
        </p>
      </Page>
    </main>
  );
}
