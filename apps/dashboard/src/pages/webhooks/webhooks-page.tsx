import { useState } from 'react';
import { Link } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { RelativeTime } from '../../components/relative-time';
import { SecretOnce } from '../../components/secret-once';
import { useSignedIn } from '../../session/use-session';
import { planName, PLAN_LIMITS } from '../../app/names';
import { EndpointForm } from './endpoint-form';
import { useCreateEndpoint, useEndpoints } from './webhook-queries';
import { TableScroll } from '../../components/table-scroll';

/** Settings -> Webhooks: the app's endpoints, and a new one. */
export function WebhooksPage() {
  const appId = useAppId();
  const session = useSignedIn();
  const pages = useCursorPages(String(appId));
  const endpoints = useEndpoints(appId, pages.cursor);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; id: string; secret: string } | undefined>();
  const create = useCreateEndpoint(appId);
  const included = session.team.plan !== 'free';
  return (
    <Page
      title="Webhooks"
      actions={
        creating || created || !included ? null : (
          <button type="button" className="button-primary" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        )
      }
    >
      <p className="lead">Endpoints receive signed HTTPS requests when the events they select happen.</p>
      {included ? (
        <p>
          Your team's {planName(session.team.plan)} plan includes {PLAN_LIMITS[session.team.plan].webhooks.toLowerCase()}, counted across all your apps.
        </p>
      ) : (
        <p className="notice" role="status">
          Webhooks are part of the Starter and Pro plans. An Owner can change the plan on the <Link to="/team">Team page</Link>.
        </p>
      )}
      {created ? (
        <>
          <SecretOnce label={`Signing secret of ${created.name}`} what="signing secret" secret={created.secret} onDone={() => setCreated(undefined)} />
          <p>
            <Link to={`/apps/${appId}/settings/webhooks/${created.id}`}>Open {created.name}</Link> to send it a test.
          </p>
        </>
      ) : null}
      {creating ? (
        <section aria-labelledby="new-endpoint">
          <h2 id="new-endpoint">New endpoint</h2>
          <EndpointForm
            initial={{ name: '', url: '', events: [] }}
            submitLabel="Create endpoint"
            busy={create.isPending}
            error={create.error}
            onCancel={() => {
              create.reset();
              setCreating(false);
            }}
            onSubmit={(fields) =>
              create.mutate(fields, {
                onSuccess: (answer) => {
                  setCreating(false);
                  setCreated({ name: answer.endpoint.name, id: answer.endpoint.id, secret: answer.signing_secret });
                  // The secret lives only in SecretOnce's props from here, not in the mutation's cache.
                  create.reset();
                },
              })
            }
          />
        </section>
      ) : null}
      <section aria-labelledby="endpoint-list">
        <h2 id="endpoint-list">Endpoints</h2>
        {endpoints.isPending ? <Loading what="endpoints" /> : null}
        <ErrorNotice error={endpoints.error} onRetry={() => endpoints.refetch()} />
        {endpoints.data && endpoints.data.items.length === 0 && pages.page === 1 ? <p>No endpoints yet.</p> : null}
        {endpoints.data && endpoints.data.items.length > 0 ? (
          <TableScroll label="Endpoints">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {endpoints.data.items.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <th scope="row">
                      <Link to={`/apps/${appId}/settings/webhooks/${endpoint.id}`}>{endpoint.name}</Link>
                    </th>
                    <td className="url">{endpoint.url}</td>
                    <td>{endpoint.events.filter((event) => event !== 'webhook.ping').join(', ')}</td>
                    <td>
                      <RelativeTime value={endpoint.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : null}
        <Pager pages={pages} nextCursor={endpoints.data?.next_cursor} label="Endpoint pages" />
      </section>
    </Page>
  );
}
