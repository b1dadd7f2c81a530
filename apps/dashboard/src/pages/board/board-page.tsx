import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { RelativeTime } from '../../components/relative-time';
import { SUGGESTION_STATUS_WORDS, TICKET_STATUS_WORDS, useSuggestions, useTickets } from './board-queries';
import type { Suggestion, Ticket } from './board-queries';
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

type Column<T> = { header: string; cell: (record: T) => ReactNode };

/**
 * One list of the board, newest first, paged: the first column is the record's title, a link to
 * its page. Suggestions and tickets differ only in their columns.
 */
function RecordList<T extends { id: number }>({
  what,
  records,
  pages,
  columns,
}: {
  what: 'Suggestions' | 'Tickets';
  records: UseQueryResult<{ data: T[]; next_cursor: string | null }>;
  pages: ReturnType<typeof useCursorPages>;
  columns: [Column<T>, ...Array<Column<T>>];
}) {
  const [title, ...rest] = columns;
  if (records.isPending) return <Loading what={what.toLowerCase()} />;
  if (records.error) return <ErrorNotice error={records.error} onRetry={() => records.refetch()} />;
  if (records.data.data.length === 0) return <p>No {what.toLowerCase()} yet. They arrive from your app's widget and the REST API.</p>;
  return (
    <>
      <TableScroll label={what}>
        <table>
          <caption className="visually-hidden">{what}, newest first</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.header} scope="col">
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {records.data.data.map((record) => (
              <tr key={record.id}>
                <th scope="row">{title.cell(record)}</th>
                {rest.map((column) => (
                  <td key={column.header}>{column.cell(record)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager pages={pages} nextCursor={records.data.next_cursor} label={`${what} pages`} />
    </>
  );
}

const authorOf = (record: Suggestion | Ticket) => record.author.name ?? record.author.external_id ?? 'Erased user';

function SuggestionList({ appId }: { appId: number }) {
  const pages = useCursorPages(`suggestions:${appId}`);
  const suggestions = useSuggestions(appId, pages.cursor);
  return (
    <RecordList
      what="Suggestions"
      records={suggestions}
      pages={pages}
      columns={[
        { header: 'Suggestion', cell: (suggestion) => <Link to={`suggestions/${suggestion.id}`}>{suggestion.title}</Link> },
        { header: 'Status', cell: (suggestion) => <span className={`badge badge-${suggestion.status}`}>{SUGGESTION_STATUS_WORDS[suggestion.status]}</span> },
        { header: 'Author', cell: authorOf },
        { header: 'Comments', cell: (suggestion) => suggestion.comment_count },
        { header: 'Updated', cell: (suggestion) => <RelativeTime value={suggestion.updated_at} /> },
      ]}
    />
  );
}

function TicketList({ appId }: { appId: number }) {
  const pages = useCursorPages(`tickets:${appId}`);
  const tickets = useTickets(appId, pages.cursor);
  return (
    <RecordList
      what="Tickets"
      records={tickets}
      pages={pages}
      columns={[
        {
          header: 'Ticket',
          cell: (ticket) => (
            <Link to={`tickets/${ticket.id}`}>
              {ticket.number}: {ticket.subject}
            </Link>
          ),
        },
        { header: 'Status', cell: (ticket) => <span className={`badge badge-${ticket.status}`}>{TICKET_STATUS_WORDS[ticket.status]}</span> },
        { header: 'Author', cell: authorOf },
        { header: 'Updated', cell: (ticket) => <RelativeTime value={ticket.updated_at} /> },
      ]}
    />
  );
}
