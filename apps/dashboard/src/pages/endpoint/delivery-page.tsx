import { Link, useParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ApiProblem } from '../../api/problem';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { ExactTime, RelativeTime } from '../../components/relative-time';
import { NotFoundPage } from '../not-found/not-found-page';
import { isSettled, statusLabel, useDelivery, useRedeliver } from './delivery-queries';

/** One delivery and its attempts. A receiver's answer is shown strictly as text, never as markup. */
export function DeliveryPage() {
  const appId = useAppId();
  const { endpointId = '', deliveryId = '' } = useParams();
  const delivery = useDelivery(appId, endpointId, deliveryId);
  const redeliver = useRedeliver(appId, endpointId, deliveryId);
  if (delivery.isPending) return <Loading what="the delivery" />;
  if (delivery.error instanceof ApiProblem && delivery.error.code === 'not_found') return <NotFoundPage what="delivery" />;
  if (delivery.error) return <ErrorNotice error={delivery.error} onRetry={() => delivery.refetch()} />;
  const { delivery: facts, attempt_log: attempts, request_body: requestBody } = delivery.data;
  const redeliverable = isSettled(facts.status) && facts.status !== 'withheld';
  return (
    <Page
      title={`${facts.event} delivery`}
      actions={
        redeliverable ? (
          <button type="button" className="button-primary" onClick={() => redeliver.mutate()} disabled={redeliver.isPending}>
            {redeliver.isPending ? 'Redelivering…' : 'Redeliver'}
          </button>
        ) : null
      }
    >
      <p className="breadcrumbs">
        <Link to={`/apps/${appId}/settings/webhooks/${endpointId}`}>Back to the endpoint</Link>
      </p>
      {redeliver.isSuccess ? (
        <p role="status" className="notice">
          One more attempt is on its way, with the same delivery id.
        </p>
      ) : null}
      <ErrorNotice error={redeliver.error} onRetry={() => redeliver.mutate()} />
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${facts.status}`}>{statusLabel(facts.status)}</span>
        </dd>
        <dt>Delivery id</dt>
        <dd>
          <code>{facts.id}</code> <span className="hint">(the envelope's id, the same on every attempt)</span>
        </dd>
        <dt>Event id</dt>
        <dd>
          <code>{facts.event_id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime value={facts.created_at} />
        </dd>
        <dt>Attempts</dt>
        <dd>{facts.attempts}</dd>
      </dl>
      <section aria-labelledby="sent-body">
        <h2 id="sent-body">Body sent</h2>
        {requestBody === null ? (
          <p>Gone: this delivery named a user whose data was erased.</p>
        ) : (
          <figure>
            <figcaption>The same bytes on every attempt, as signed</figcaption>
            <pre className="answer" tabIndex={0}>
              {requestBody}
            </pre>
          </figure>
        )}
      </section>
      <section aria-labelledby="attempts">
        <h2 id="attempts">Attempts</h2>
        {attempts.length === 0 ? <p>No attempt yet.</p> : null}
        <ol className="attempts">
          {attempts.map((attempt) => (
            <li key={attempt.number} className="attempt">
              <h3>
                Attempt {attempt.number}: {attempt.response_code ? `answered ${attempt.response_code}` : 'no answer'}
              </h3>
              <dl className="facts">
                <dt>Started</dt>
                <dd>
                  <ExactTime value={attempt.started_at} />
                </dd>
                <dt>Duration</dt>
                <dd>{attempt.duration_ms} ms</dd>
                <dt>Response code</dt>
                <dd>{attempt.response_code ?? '—'}</dd>
                {attempt.error ? (
                  <>
                    <dt>Error</dt>
                    <dd className="attempt-error">{attempt.error}</dd>
                  </>
                ) : null}
              </dl>
              {attempt.request ? (
                <figure>
                  <figcaption>Request as sent</figcaption>
                  <pre className="answer" tabIndex={0}>
                    {`POST ${attempt.request.url}\n${Object.entries(attempt.request.headers)
                      .map(([name, value]) => `${name}: ${value}`)
                      .join('\n')}`}
                  </pre>
                </figure>
              ) : null}
              {attempt.response_body_start ? (
                <figure>
                  <figcaption>Start of the answer</figcaption>
                  <pre className="answer" tabIndex={0}>
                    {attempt.response_body_start}
                  </pre>
                </figure>
              ) : null}
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}
