import { isRouteErrorResponse, useRouteError } from 'react-router';

/** A page of the dashboard that was built before the latest release asks for files that are gone. */
function isStaleBuild(error: unknown): boolean {
  return error instanceof TypeError && /dynamically imported module|Importing a module script failed/i.test(error.message);
}

/**
 * What a page that failed shows instead of a crash: in words, with a way out. A tab opened before
 * a new release loads the new one.
 */
export function RouteError() {
  const error = useRouteError();
  const stale = isStaleBuild(error);
  const missing = isRouteErrorResponse(error) && error.status === 404;
  return (
    <main id="main" className="auth">
      <h1>{stale ? 'The dashboard was updated' : missing ? 'No such page' : 'This page could not be shown'}</h1>
      <p>
        {stale
          ? 'A newer version of the dashboard is out. Reload the page to use it.'
          : missing
            ? 'This address is not a page of the dashboard.'
            : 'Something went wrong while showing this page. Reload it; if it keeps happening, contact support.'}
      </p>
      <p>
        <button type="button" className="button-primary" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <a href="/dashboard/apps">Go to your apps</a>
      </p>
    </main>
  );
}

/**
 * Vite's signal that a page's file failed to load, typically after a release: reload once, with
 * the new index.html. A second failure in the same minute shows RouteError instead of looping.
 */
export function reloadOnStaleBuild(): void {
  window.addEventListener('vite:preloadError', (event) => {
    const last = Number(sessionStorage.getItem('feedback.dashboard.reloaded-at') ?? 0);
    if (Date.now() - last < 60_000) return;
    event.preventDefault();
    sessionStorage.setItem('feedback.dashboard.reloaded-at', String(Date.now()));
    window.location.reload();
  });
}
