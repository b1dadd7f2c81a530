/** The next page of a thread read oldest first, at the member's request. */
export function ShowMore({ thread, what }: { thread: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }; what: string }) {
  if (!thread.hasNextPage) return null;
  return (
    <button type="button" className="button-secondary" onClick={() => thread.fetchNextPage()} disabled={thread.isFetchingNextPage}>
      {thread.isFetchingNextPage ? 'Loading…' : `Show more ${what}`}
    </button>
  );
}
