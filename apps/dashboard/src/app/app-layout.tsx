import { NavLink, Outlet, useParams } from 'react-router';
import { ErrorNotice } from '../components/error-notice';
import { Loading } from '../components/page';
import { NotFoundPage } from '../pages/not-found/not-found-page';
import { useApp } from '../pages/apps/app-queries';
import { canManageKeys, useSignedIn } from '../session/use-session';

/** The app's id from the path, as a number; NaN when the path holds none. */
export function useAppId(): number {
  const { appId } = useParams();
  return /^\d{1,15}$/.test(appId ?? '') ? Number(appId) : NaN;
}

/**
 * Every page of one app: its name and its sections. Settings appear only to Owners and Admins
 * (specification 1.4); a Member who opens their address is told so instead.
 */
export function AppLayout() {
  const session = useSignedIn();
  const appId = useAppId();
  const { app, isPending, error, refetch } = useApp(appId);
  if (isPending) return <Loading what="the app" />;
  if (error) return <ErrorNotice error={error} onRetry={() => refetch()} />;
  if (!app) return <NotFoundPage what="app" />;
  return (
    <>
      <nav aria-label={`${app.name} sections`} className="app-nav">
        <span className="app-name">{app.name}</span>
        <NavLink to={`/apps/${app.id}/board`}>Board</NavLink>
        {canManageKeys(session) ? (
          <>
            <NavLink to={`/apps/${app.id}/settings/api-keys`}>Settings → API keys</NavLink>
            <NavLink to={`/apps/${app.id}/settings/webhooks`}>Settings → Webhooks</NavLink>
          </>
        ) : null}
      </nav>
      <Outlet />
    </>
  );
}

/** Settings pages: Owners and Admins only. */
export function ManagersOnly() {
  const session = useSignedIn();
  if (!canManageKeys(session)) {
    return (
      <div className="notice" role="alert">
        <h1>Only Owners and Admins can manage API keys and webhooks</h1>
        <p>Ask an Owner or Admin of {session.team.name} if you need a key or an endpoint changed.</p>
      </div>
    );
  }
  return <Outlet />;
}
