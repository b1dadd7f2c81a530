import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { ErrorNotice, fieldError, formError } from '../../components/error-notice';
import { Field } from '../../components/field';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import { canManageKeys, useSignedIn } from '../../session/use-session';
import { useApps } from './app-queries';

export function AppsPage() {
  const session = useSignedIn();
  const apps = useApps();
  const managers = canManageKeys(session);
  return (
    <Page title="Apps">
      <p className="lead">Each app collects suggestions, tickets and survey responses from its users. Its public key goes in your widget.</p>
      {apps.isPending ? <Loading what="apps" /> : null}
      <ErrorNotice error={apps.error} onRetry={() => apps.refetch()} />
      {apps.data && apps.data.items.length === 0 ? <p>Your team has no apps yet{managers ? ': create the first one below.' : '.'}</p> : null}
      <ul className="cards">
        {apps.data?.items.map((app) => (
          <li key={app.id} className="card">
            <h2>
              <Link to={`/apps/${app.id}/board`}>{app.name}</Link>
            </h2>
            <dl className="facts">
              <dt>App id</dt>
              <dd>{app.id}</dd>
              <dt>Public key</dt>
              <dd className="key-row">
                <code>{app.public_key}</code>
                <CopyButton text={app.public_key} label={`Copy public key of ${app.name}`} />
              </dd>
              <dt>Created</dt>
              <dd>
                <RelativeTime value={app.created_at} />
              </dd>
            </dl>
            <nav aria-label={`${app.name}`} className="card-links">
              <Link to={`/apps/${app.id}/board`}>Board</Link>
              {managers ? <Link to={`/apps/${app.id}/settings/api-keys`}>API keys</Link> : null}
              {managers ? <Link to={`/apps/${app.id}/settings/webhooks`}>Webhooks</Link> : null}
            </nav>
          </li>
        ))}
      </ul>
      {managers ? <CreateApp /> : null}
    </Page>
  );
}

function CreateApp() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/apps', { body: { name } })),
    onSuccess: () => {
      setName('');
      return queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  return (
    <section aria-labelledby="create-app">
      <h2 id="create-app">Create an app</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Field label="App name" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} error={fieldError(create.error, 'name')} />
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create app'}
        </button>
      </form>
      <ErrorNotice error={formError(create.error, ['name'])} onRetry={() => create.mutate()} />
      {create.isSuccess ? (
        <p role="status" className="notice">
          {create.data.app.name} is created. Its API key exists with read scopes; rotate it on the API keys page to see it.
        </p>
      ) : null}
    </section>
  );
}
