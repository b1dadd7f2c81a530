import { useRef, useState } from 'react';
import { useOnClickOutside } from 'usehooks-ts';
import { Link, useNavigate, useParams } from 'react-router';
import { useAppId } from '../../app/app-layout';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { SecretOnce } from '../../components/secret-once';
import { NotFoundPage } from '../not-found/not-found-page';
import { EndpointForm } from '../webhooks/endpoint-form';
import { useDeleteEndpoint, useEndpoint, useUpdateEndpoint } from '../webhooks/webhook-queries';
import type { Endpoint } from '../webhooks/webhook-queries';
import { DeliveryHistory } from './delivery-history';
import { useRotateSecret, useSendTest } from './delivery-queries';
import { EndpointActivity, EndpointHealth } from './endpoint-health';
import { RecoverPanel } from './recover-panel';
import { usePauseEndpoint, useWebhookAudit } from './recovery-queries';
import { ApiProblem } from '../../api/problem';

/** The endpoint detail page: what it is, its menu, and the history of its deliveries. */
export function EndpointPage() {
  const appId = useAppId();
  const endpointId = useParams().endpointId ?? '';
  const endpoint = useEndpoint(appId, endpointId);
  if (endpoint.isPending) return <Loading what="the endpoint" />;
  if (endpoint.error instanceof ApiProblem && endpoint.error.code === 'not_found') return <NotFoundPage what="endpoint" />;
  if (endpoint.error) return <ErrorNotice error={endpoint.error} onRetry={() => endpoint.refetch()} />;
  return <EndpointView appId={appId} endpoint={endpoint.data} />;
}

type MenuAction = 'test' | 'rotate' | 'edit' | 'delete' | 'pause' | 'resume';

function EndpointView({ appId, endpoint }: { appId: number; endpoint: Endpoint }) {
  const navigate = useNavigate();
  const menu = useRef<HTMLDetailsElement>(null);
  const menuButton = useRef<HTMLElement>(null);
  const closeMenu = () => {
    if (!menu.current?.open) return;
    menu.current.open = false;
    // A dialog opened from the menu gives focus back here when it closes.
    menuButton.current?.focus();
  };
  useOnClickOutside(menu as React.RefObject<HTMLElement>, closeMenu);
  const [action, setAction] = useState<MenuAction | undefined>();
  const [secret, setSecret] = useState<string | undefined>();
  const sendTest = useSendTest(appId, endpoint.id);
  const rotate = useRotateSecret(appId, endpoint.id);
  const update = useUpdateEndpoint(appId, endpoint.id);
  const remove = useDeleteEndpoint(appId, endpoint.id);
  const pause = usePauseEndpoint(appId, endpoint.id, 'pause');
  const resume = usePauseEndpoint(appId, endpoint.id, 'resume');
  const audit = useWebhookAudit(appId);
  const choose = (chosen: MenuAction) => {
    closeMenu();
    if (chosen === 'test') sendTest.mutate();
    else if (chosen === 'resume') resume.mutate();
    else setAction(chosen);
  };
  const menuItem = (chosen: MenuAction, label: string) => (
    <li>
      <button type="button" className="menu-item" onClick={() => choose(chosen)}>
        {label}
      </button>
    </li>
  );
  return (
    <Page
      title={endpoint.name}
      actions={
        <details className="menu" ref={menu} onKeyDown={(event) => event.key === 'Escape' && closeMenu()}>
          <summary className="button-secondary" ref={menuButton}>
            Endpoint menu
          </summary>
          <ul>
            {menuItem('test', 'Send test')}
            {endpoint.pause ? menuItem('resume', 'Resume') : menuItem('pause', 'Pause')}
            {menuItem('rotate', 'Rotate secret')}
            {menuItem('edit', 'Edit')}
            {menuItem('delete', 'Delete')}
          </ul>
        </details>
      }
    >
      <p className="breadcrumbs">
        <Link to={`/apps/${appId}/settings/webhooks`}>All endpoints</Link>
      </p>
      <dl className="facts">
        <dt>URL</dt>
        <dd className="url">{endpoint.url}</dd>
        <dt>Events</dt>
        <dd>{endpoint.events.filter((event) => event !== 'webhook.ping').join(', ')}</dd>
        <dt>Endpoint id</dt>
        <dd>
          <code>{endpoint.id}</code>
        </dd>
      </dl>
      {sendTest.isSuccess ? (
        <p role="status" className="notice">
          A <code>webhook.ping</code> is on its way. It appears in the history below.
        </p>
      ) : null}
      <ErrorNotice error={sendTest.error} onRetry={() => sendTest.mutate()} />
      <ErrorNotice error={resume.error} onRetry={() => resume.mutate()} />
      <EndpointHealth endpoint={endpoint} />
      {secret ? <SecretOnce label="New signing secret" what="signing secret" secret={secret} onDone={() => setSecret(undefined)} /> : null}
      {action === 'edit' ? (
        <section aria-labelledby="edit-endpoint">
          <h2 id="edit-endpoint">Edit endpoint</h2>
          <EndpointForm
            initial={{ name: endpoint.name, url: endpoint.url, events: endpoint.events }}
            submitLabel="Save changes"
            busy={update.isPending}
            error={update.error}
            onCancel={() => {
              update.reset();
              setAction(undefined);
            }}
            onSubmit={(fields) => update.mutate(fields, { onSuccess: () => setAction(undefined) })}
          />
        </section>
      ) : null}
      <ConfirmDialog
        open={action === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        destructive
        busy={rotate.isPending}
        onCancel={() => setAction(undefined)}
        onConfirm={() =>
          rotate.mutate(undefined, {
            onSuccess: (answer) => {
              setAction(undefined);
              setSecret(answer.signing_secret);
              // The secret lives only in SecretOnce's props from here, not in the mutation's cache.
              rotate.reset();
            },
          })
        }
      >
        <p>A new secret is shown once. The current secret stops signing at once: your receiver must verify with the new one from the next delivery.</p>
        <ErrorNotice error={rotate.error} />
      </ConfirmDialog>
      <ConfirmDialog
        open={action === 'delete'}
        title={`Delete ${endpoint.name}?`}
        confirmLabel="Delete endpoint"
        destructive
        busy={remove.isPending}
        onCancel={() => setAction(undefined)}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate(`/apps/${appId}/settings/webhooks`, { replace: true }) })}
      >
        <p>Nothing more is sent to {endpoint.url}, and its delivery history is deleted with it.</p>
        <ErrorNotice error={remove.error} />
      </ConfirmDialog>
      <ConfirmDialog
        open={action === 'pause'}
        title={`Pause ${endpoint.name}?`}
        confirmLabel="Pause endpoint"
        busy={pause.isPending}
        onCancel={() => setAction(undefined)}
        onConfirm={() => pause.mutate(undefined, { onSuccess: () => setAction(undefined) })}
      >
        <p>Nothing is sent to {endpoint.url} until it is resumed. Its events are kept as held deliveries, and Recover sends them once it is resumed.</p>
        <ErrorNotice error={pause.error} />
      </ConfirmDialog>
      <RecoverPanel appId={appId} endpointId={endpoint.id} paused={endpoint.pause !== null} />
      <DeliveryHistory appId={appId} endpointId={endpoint.id} />
      <EndpointActivity entries={(audit.data?.items ?? []).filter((entry) => entry.endpoint_id === endpoint.id)} />
    </Page>
  );
}
