import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ApiProblem } from '../../api/problem';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import { ShowMore } from '../../components/show-more';
import { NotFoundPage } from '../not-found/not-found-page';
import { TICKET_STATUS_WORDS, useTicket, useTicketChanges } from './board-queries';
import { StatusChanger } from './status-changer';

/** A ticket's conversation: public replies the user sees, and internal notes only the team sees. */
export function TicketPage() {
  const appId = useAppId();
  const ticketId = Number(useParams().ticketId);
  const { ticket, messages } = useTicket(appId, ticketId);
  const { changeStatus, addMessage } = useTicketChanges(appId, ticketId);
  const [text, setText] = useState('');
  const [visibility, setVisibility] = useState<'public' | 'internal'>('public');
  if (ticket.isPending) return <Loading what="the ticket" />;
  if (ticket.error instanceof ApiProblem && ticket.error.code === 'not_found') return <NotFoundPage what="ticket" />;
  if (ticket.error) return <ErrorNotice error={ticket.error} onRetry={() => ticket.refetch()} />;
  const record = ticket.data;
  const send = () => addMessage.mutate({ body: text, visibility }, { onSuccess: () => setText('') });
  return (
    <Page title={`${record.number}: ${record.subject}`}>
      <p className="breadcrumbs">
        <Link to={`/apps/${appId}/board?view=tickets`}>Tickets</Link>
      </p>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${record.status}`}>{TICKET_STATUS_WORDS[record.status]}</span>
        </dd>
        <dt>Opened by</dt>
        <dd>{record.author.name ?? record.author.external_id ?? 'Erased user'}</dd>
        <dt>Opened</dt>
        <dd>
          <RelativeTime value={record.created_at} />
        </dd>
      </dl>
      <StatusChanger
        key={record.status}
        allowed={record.allowed_statuses}
        words={TICKET_STATUS_WORDS}
        busy={changeStatus.isPending}
        error={changeStatus.error}
        onChange={(status) => changeStatus.mutate(status)}
      />
      <section aria-labelledby="conversation">
        <h2 id="conversation">Conversation</h2>
        {messages.isPending ? <Loading what="messages" /> : null}
        <ErrorNotice error={messages.error} onRetry={() => messages.refetch()} />
        {messages.data?.pages[0]?.items.length === 0 ? <p>No messages yet.</p> : null}
        <ol className="conversation">
          {messages.data?.pages.flatMap((page) => page.items).map((message) => (
            <li key={message.id} className={`message ${message.visibility === 'internal' ? 'internal-note' : message.sender.type === 'member' ? 'from-team' : 'from-user'}`}>
              <p className="message-meta">
                {message.visibility === 'internal' ? <span className="badge badge-internal">Internal note: the user never sees it</span> : <span className="badge badge-public">Public reply</span>}{' '}
                <strong>{message.sender.name ?? (message.sender.type === 'member' ? 'A team member' : 'Erased user')}</strong> · <RelativeTime value={message.created_at} />
              </p>
              <p className="message-body">{message.body}</p>
            </li>
          ))}
        </ol>
        <ShowMore thread={messages} what="messages" />
        {record.status === 'closed' ? (
          <p className="hint">This ticket is closed: it takes no more replies or notes.</p>
        ) : (
          <form
            className="stacked-form"
            onSubmit={(event) => {
              event.preventDefault();
              send();
            }}
          >
            <fieldset className="choice">
              <legend>Write</legend>
              <label className="checkbox">
                <input type="radio" name="visibility" value="public" checked={visibility === 'public'} onChange={() => setVisibility('public')} />
                <span>A public reply, sent to the user</span>
              </label>
              <label className="checkbox">
                <input type="radio" name="visibility" value="internal" checked={visibility === 'internal'} onChange={() => setVisibility('internal')} />
                <span>An internal note, for the team only</span>
              </label>
            </fieldset>
            <div className="field">
              <label htmlFor="new-message">{visibility === 'public' ? 'Reply' : 'Note'}</label>
              <textarea id="new-message" required maxLength={20_000} rows={5} value={text} onChange={(event) => setText(event.target.value)} />
            </div>
            <ErrorNotice error={addMessage.error} onRetry={send} />
            <button type="submit" className="button-primary" disabled={addMessage.isPending}>
              {addMessage.isPending ? 'Sending…' : visibility === 'public' ? 'Send reply' : 'Add note'}
            </button>
          </form>
        )}
      </section>
    </Page>
  );
}
