import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, unwrap } from '../api/client';
import { ApiProblem } from '../api/problem';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorNotice } from '../components/error-notice';
import { useSecretOnScreen } from '../components/secrets-on-screen';
import { sessionStore } from '../session/session-store';
import { SessionKeeper } from '../session/session-keeper';
import { useSignedIn } from '../session/use-session';
import { planName, roleName } from './names';

/** The frame of every signed-in page: who is signed in, where they can go, and how to leave. */
export function Layout() {
  const session = useSignedIn();
  const [menuOpen, setMenuOpen] = useState(false);
  const secretOnScreen = useSecretOnScreen();
  const [confirmSignOut, setConfirmSignOut] = useState(false);
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/sign-out')),
    onSuccess: () => sessionStore.end('signed_out'),
    // A session the server already ended is signed out too.
    onError: (error) => error instanceof ApiProblem && error.status === 401 && sessionStore.end('signed_out'),
  });
  const requestSignOut = () => (secretOnScreen ? setConfirmSignOut(true) : signOut.mutate());
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <SessionKeeper />
      <header className="topbar">
        <div className="brand">
          <span className="brand-name">Feedback</span>
          <span className="team-name">
            {session.team.name} · {planName(session.team.plan)} plan
          </span>
        </div>
        <button type="button" className="menu-toggle button-secondary" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'main-nav open' : 'main-nav'} onClick={() => setMenuOpen(false)}>
          <NavLink to="/apps" end>
            Apps
          </NavLink>
          <NavLink to="/team">Team</NavLink>
          <a href="/docs/api-keys">Docs</a>
        </nav>
        <div className="account">
          <span>
            {session.member.name} <span className="role">({roleName(session.member.role)})</span>
          </span>
          <button type="button" className="button-secondary button-small" onClick={requestSignOut} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      {signOut.error ? (
        <div className="sign-out-failed">
          <ErrorNotice error={signOut.error} onRetry={() => signOut.mutate()} />
          {/* Without the service, this device forgets the session; the server ends it when it expires. */}
          <button type="button" className="button-secondary" onClick={() => sessionStore.end('signed_out')}>
            Sign out on this device anyway
          </button>
        </div>
      ) : null}
      <ConfirmDialog
        open={confirmSignOut}
        title="Sign out without the secret?"
        confirmLabel="Sign out"
        destructive
        onConfirm={() => {
          setConfirmSignOut(false);
          signOut.mutate();
        }}
        onCancel={() => setConfirmSignOut(false)}
      >
        <p>A secret shown once is still on screen. It will not be shown again after you sign out.</p>
      </ConfirmDialog>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
