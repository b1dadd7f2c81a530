import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNotice } from '../components/error-notice';
import { sessionStore } from '../session/session-store';
import { SessionKeeper } from '../session/session-keeper';
import { useSignedIn } from '../session/use-session';
import { planName, roleName } from './names';

/** The frame of every signed-in page: who is signed in, where they can go, and how to leave. */
export function Layout() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [menuOpen, setMenuOpen] = useState(false);
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/sign-out')),
    onSuccess: () => {
      sessionStore.end('signed_out');
      queryClient.clear();
    },
  });
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
          <button type="button" className="button-secondary button-small" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      {signOut.error ? <ErrorNotice error={signOut.error} onRetry={() => signOut.mutate()} /> : null}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
