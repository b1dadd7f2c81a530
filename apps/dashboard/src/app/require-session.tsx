import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../session/use-session';

/** The signed-in part of the page: without a session, sign in first and come back here. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

/** Where to go after signing in: only a path inside the dashboard, never another site. */
export function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') ? raw : '/apps';
}
