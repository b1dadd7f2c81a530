import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ApiProblem } from '../../api/problem';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import { ShowMore } from '../../components/show-more';
import { NotFoundPage } from '../not-found/not-found-page';
import { SUGGESTION_STATUS_WORDS, useSuggestion, useSuggestionChanges } from './board-queries';
import { StatusChanger } from './status-changer';

export function SuggestionPage() {
  const appId = useAppId();
  const suggestionId = Number(useParams().suggestionId);
  const { suggestion, comments } = useSuggestion(appId, suggestionId);
  const { changeStatus, comment } = useSuggestionChanges(appId, suggestionId);
  const [text, setText] = useState('');
  if (suggestion.isPending) return <Loading what="the suggestion" />;
  if (suggestion.error instanceof ApiProblem && suggestion.error.code === 'not_found') return <NotFoundPage what="suggestion" />;
  if (suggestion.error) return <ErrorNotice error={suggestion.error} onRetry={() => suggestion.refetch()} />;
  const record = suggestion.data;
  return (
    <Page title={record.title}>
      <p className="breadcrumbs">
        <Link to={`/apps/${appId}/board`}>Board</Link>
      </p>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${record.status}`}>{SUGGESTION_STATUS_WORDS[record.status]}</span>
        </dd>
        <dt>Author</dt>
        <dd>{record.author.name ?? record.author.external_id ?? 'Erased user'}</dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime value={record.created_at} />
        </dd>
      </dl>
      {record.body ? <p className="record-body">{record.body}</p> : null}
      <StatusChanger
        key={record.status}
        allowed={record.allowed_statuses}
        words={SUGGESTION_STATUS_WORDS}
        busy={changeStatus.isPending}
        error={changeStatus.error}
        onChange={(status) => changeStatus.mutate(status)}
      />
      <section aria-labelledby="comments">
        <h2 id="comments">Comments ({record.comment_count})</h2>
        {comments.isPending ? <Loading what="comments" /> : null}
        <ErrorNotice error={comments.error} onRetry={() => comments.refetch()} />
        <ol className="conversation">
          {comments.data?.pages.flatMap((page) => page.items).map((item) => (
            <li key={item.id} className={item.author.type === 'member' ? 'message from-team' : 'message from-user'}>
              <p className="message-meta">
                <strong>{item.author.name ?? 'Erased user'}</strong> {item.author.type === 'member' ? '(team)' : '(user)'} · <RelativeTime value={item.created_at} />
              </p>
              <p className="message-body">{item.body}</p>
            </li>
          ))}
        </ol>
        <ShowMore thread={comments} what="comments" />
        <form
          className="stacked-form"
          onSubmit={(event) => {
            event.preventDefault();
            comment.mutate(text, { onSuccess: () => setText('') });
          }}
        >
          <div className="field">
            <label htmlFor="new-comment">Add a comment</label>
            <p className="hint" id="new-comment-hint">
              Comments are public: the app's users see them.
            </p>
            <textarea id="new-comment" aria-describedby="new-comment-hint" required maxLength={10_000} rows={4} value={text} onChange={(event) => setText(event.target.value)} />
          </div>
          <ErrorNotice error={comment.error} onRetry={() => comment.mutate(text)} />
          <button type="submit" className="button-primary" disabled={comment.isPending}>
            {comment.isPending ? 'Posting…' : 'Post comment'}
          </button>
        </form>
      </section>
    </Page>
  );
}
