import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';

const TITLE_SUFFIX = ' · Feedback dashboard';
/** The first page of a visit keeps the browser's own focus; later pages take it, see `Page`. */
let firstPage = true;

/**
 * A page's heading, also the browser tab's title. After a navigation, focus moves to the heading,
 * so a screen reader starts reading the new page rather than staying on the link that was pressed.
 */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title}${TITLE_SUFFIX}`;
  }, [title]);
  useEffect(() => {
    if (!firstPage) heading.current?.focus({ preventScroll: true });
    firstPage = false;
  }, []);
  return (
    <>
      <div className="page-header">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}

export function Loading({ what }: { what: string }) {
  useEffect(() => {
    document.title = `Loading${TITLE_SUFFIX}`;
  }, []);
  return (
    <p role="status" className="loading">
      Loading {what}…
    </p>
  );
}
