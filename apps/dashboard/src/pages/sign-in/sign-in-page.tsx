import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/error-notice';
import { Field } from '../../components/field';
import { Page } from '../../components/page';
import { safeNext } from '../../app/require-session';
import { sessionStore } from '../../session/session-store';
import { startSession } from '../../session/start-session';
import { useSession } from '../../session/use-session';

const ENDED: Record<string, string> = {
  signed_out: 'You are signed out.',
  expired: 'Your session ended. Sign in again to continue.',
};

export function SignInPage() {
  const session = useSession();
  const [search] = useSearchParams();
  const [ended] = useState(() => sessionStore.takeEndReason());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => startSession(api.POST('/dashboard/v1/sign-in', { body: { email, password } })),
  });
  if (session) return <Navigate to={safeNext(search.get('next'))} replace />;
  return (
    <main id="main" className="auth">
      <Page title="Sign in">
        {ended ? (
          <p className="notice" role="status">
            {ENDED[ended]}
          </p>
        ) : null}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            signIn.mutate();
          }}
        >
          <Field label="Email" type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} />
          <Field label="Password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
          <ErrorNotice error={signIn.error} onRetry={() => signIn.mutate()} />
          <button type="submit" className="button-primary" disabled={signIn.isPending}>
            {signIn.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p>
          New here? <Link to={`/sign-up${search.size ? `?${search}` : ''}`}>Create a team</Link>
        </p>
      </Page>
    </main>
  );
}
