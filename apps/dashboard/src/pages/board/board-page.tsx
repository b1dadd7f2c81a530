import { Link, useSearchParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { RelativeTime } from '../../components/relative-time';
import { SUGGESTION_STATUS_WORDS, TICKET_STATUS_WORDS, useSuggestions, useTickets } from './board-queries';
import { TableScroll } from '../../components/table-scroll';

/** The board: an app's suggestions and tickets, newest first. */
export function BoardPage() {
  const appId = useAppId();
  const [search, setSearch] = useSearchParams();
  const view = search.get('view') === 'tickets' ? 'tickets' : 'suggestions';
  return (
    <Page title="Board">
      <div className="tabs" role="group" aria-label="What to show">
        <button type="button" aria-pressed={view === 'suggestions'} onClick={() => setSearch({})}>
          Suggestions
        </button>
        <button type="button" aria-pressed={view === 'tickets'} onClick={() => setSearch({ view: 'tickets' })}>
          Tickets
        </button>
      </div>
      {view === 'suggestions' ? <SuggestionList appId={appId} /> : <TicketList appId={appId} />}
    </Page>
  );
}

function SuggestionList({ appId }: { appId: number }) {
  const pages = useCursorPages(`suggestions:${appId}`);
  const suggestions = useSuggestions(appId, pages.cursor);
  if (suggestions.isPending) return <Loading what="suggestions" />;
  if (suggestions.error) return <ErrorNotice error={suggestions.error} onRetry={() => suggestions.refetch()} />;
  if (suggestions.data.data.length === 0) return <p>No suggestions yet. They arrive from your app's widget and the REST API.</p>;
  return (
    <>
      <TableScroll label="Suggestions">
        <table>
          <caption className="visually-hidden">Suggestions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Suggestion</th>
              <th scope="col">Status</th>
              <th scope="col">Author</th>
              <th scope="col">Comments</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {suggestions.data.data.map((suggestion) => (
              <tr key={suggestion.id}>
                <th scope="row">
                  <Link to={`suggestions/${suggestion.id}`}>{suggestion.title}</Link>
                </th>
                <td>
                  <span className={`badge badge-${suggestion.status}`}>{SUGGESTION_STATUS_WORDS[suggestion.status]}</span>
                </td>
                <td>{suggestion.author.name ?? suggestion.author.external_id ?? 'Erased user'}</td>
                <td>{suggestion.comment_count}</td>
                <td>
                  <RelativeTime value={suggestion.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager pages={pages} nextCursor={suggestions.data.next_cursor} label="Suggestion pages" />
    </>
  );
}

function TicketList({ appId }: { appId: number }) {
  const pages = useCursorPages(`tickets:${appId}`);
  const tickets = useTickets(appId, pages.cursor);
  if (tickets.isPending) return <Loading what="tickets" />;
  if (tickets.error) return <ErrorNotice error={tickets.error} onRetry={() => tickets.refetch()} />;
  if (tickets.data.data.length === 0) return <p>No tickets yet. They arrive from your app's widget and the REST API.</p>;
  return (
    <>
      <TableScroll label="Tickets">
        <table>
          <caption className="visually-hidden">Tickets, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Ticket</th>
              <th scope="col">Status</th>
              <th scope="col">Author</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {tickets.data.data.map((ticket) => (
              <tr key={ticket.id}>
                <th scope="row">
                  <Link to={`tickets/${ticket.id}`}>
                    {ticket.number}: {ticket.subject}
                  </Link>
                </th>
                <td>
                  <span className={`badge badge-${ticket.status}`}>{TICKET_STATUS_WORDS[ticket.status]}</span>
                </td>
                <td>{ticket.author.name ?? ticket.author.external_id ?? 'Erased user'}</td>
                <td>
                  <RelativeTime value={ticket.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager pages={pages} nextCursor={tickets.data.next_cursor} label="Ticket pages" />
    </>
  );
}
