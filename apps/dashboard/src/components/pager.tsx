import { useState } from 'react';

/**
 * Where a cursor-paged list is: the cursors of the pages before, so "Previous" goes back without
 * the service having to page backwards.
 */
export function useCursorPages(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: Array<string | undefined> }>({ key: resetKey, cursors: [undefined] });
  // A new filter starts again from the first page.
  const cursors = state.key === resetKey ? state.cursors : [undefined];
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    next: (cursor: string) => setState({ key: resetKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: resetKey, cursors: cursors.slice(0, -1) }),
  };
}

export function Pager({ pages, nextCursor, label }: { pages: ReturnType<typeof useCursorPages>; nextCursor: string | null | undefined; label: string }) {
  if (pages.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button-secondary" disabled={pages.page === 1} onClick={pages.previous}>
        Previous page
      </button>
      <span>Page {pages.page}</span>
      <button type="button" className="button-secondary" disabled={!nextCursor} onClick={() => nextCursor && pages.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}
