import { useEffect, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { ErrorNotice } from '../components/error-notice';
import { Field } from '../components/field';
import { sessionStore } from './session-store';
import type { Session } from './session-store';
import { startSession } from './start-session';

/**
 * Asks for the password over the page when the session ended under it: what the member typed
 * stays in its form, and pressing its button again sends it. Signing in as someone else, or
 * giving up, leaves the page.
 */
export function SignInAgain({ interrupted }: { interrupted: Session }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => startSession(api.POST('/dashboard/v1/sign-in', { body: { email: interrupted.member.email, password } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="sign-in-again" onCancel={(event) => event.preventDefault()}>
      <h2 id="sign-in-again">Your session ended</h2>
      <p>Sign in again to go on. What you typed on the page is kept.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.mutate();
        }}
      >
        <p>
          Signing in as <strong>{interrupted.member.email}</strong>
        </p>
        <Field label="Password" type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
        <ErrorNotice error={signIn.error} onRetry={() => signIn.mutate()} />
        <div className="dialog-actions">
          <button type="button" className="button-secondary" onClick={() => sessionStore.abandonInterrupted()}>
            Leave this page
          </button>
          <button type="submit" className="button-primary" disabled={signIn.isPending}>
            {signIn.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
