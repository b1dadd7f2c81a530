import { useEffect } from 'react';
import type { ReactNode } from 'react';

/** A page's heading, also the browser tab's title. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Feedback dashboard`;
  }, [title]);
  return (
    <>
      <div className="page-header">
        <h1>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="loading">
      Loading {what}…
    </p>
  );
}
