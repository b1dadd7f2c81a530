import { Navigate, Outlet, useLocation } from 'react-router';
import { SignInAgain } from '../session/sign-in-again';
import { useInterruptedSession, useSession } from '../session/use-session';

/**
 * The signed-in part of the page. Without a session, sign in first and come back here; a session
 * that ended under an open page asks for the password over it instead, so nothing typed is lost.
 */
export function RequireSession() {
  const session = useSession();
  const interrupted = useInterruptedSession();
  const location = useLocation();
  if (!session && interrupted) {
    return (
      <>
        <Outlet />
        <SignInAgain interrupted={interrupted} />
      </>
    );
  }
  if (!session) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

/** Where to go after signing in: only a path inside the dashboard, never another site. */
export function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\') ? raw : '/apps';
}
