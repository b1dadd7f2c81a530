import { useState } from 'react';
import { useAppId } from '../../app/app-layout';
import { ApiProblem } from '../../api/problem';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import { SecretOnce } from '../../components/secret-once';
import { SCOPES, useApiKey, useKeyAction, useKeyAudit, useScopeChange } from './api-key-queries';
import type { ApiKey, KeyAction } from './api-key-queries';

/** Settings -> API keys: the app's secret key, its scopes, its actions and who did what. */
export function ApiKeysPage() {
  const appId = useAppId();
  const key = useApiKey(appId);
  return (
    <Page title="API keys">
      <p className="lead">
        Your systems call the REST API with this app's secret key. A key does only what its scopes allow. <a href="/docs/api-keys">How keys and scopes work</a>
      </p>
      {key.isPending ? <Loading what="the key" /> : null}
      <ErrorNotice error={key.error} onRetry={() => key.refetch()} />
      {key.data ? (
        <>
          <KeySummary apiKey={key.data} />
          <KeyActions appId={appId} apiKey={key.data} />
          <Scopes appId={appId} apiKey={key.data} />
        </>
      ) : null}
      <AuditTrail appId={appId} />
    </Page>
  );
}

function KeySummary({ apiKey }: { apiKey: ApiKey }) {
  return (
    <section aria-labelledby="key-summary">
      <h2 id="key-summary">Secret key</h2>
      <dl className="facts">
        <dt>Key</dt>
        <dd>
          <code>{apiKey.display_prefix}</code> <span className="hint">(the rest is never shown again after it is created)</span>
        </dd>
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${apiKey.status}`}>{apiKey.status === 'active' ? 'Active' : 'Revoked'}</span>
        </dd>
        <dt>Last used</dt>
        <dd>
          <RelativeTime value={apiKey.last_used_at} never="Never used" />
        </dd>
        <dt>Last rotated</dt>
        <dd>
          <RelativeTime value={apiKey.rotated_at} never="Never rotated" />
        </dd>
      </dl>
    </section>
  );
}

const ACTIONS: Record<KeyAction, { label: string; title: string; explain: (apiKey: ApiKey) => string; destructive: boolean }> = {
  rotate: {
    label: 'Rotate key',
    title: 'Rotate the secret key?',
    explain: (apiKey) =>
      apiKey.status === 'active'
        ? 'A new key is made with the same scopes and shown once. The current key stops working at once: every system using it gets 401 until it has the new one.'
        : 'A new active key is made with the same scopes and shown once. The revoked key stays revoked.',
    destructive: true,
  },
  revoke: {
    label: 'Revoke key',
    title: 'Revoke the secret key?',
    explain: () => 'Every request with this key gets 401 at once. The key does not change: restoring it makes the same key work again.',
    destructive: true,
  },
  restore: {
    label: 'Restore key',
    title: 'Restore the secret key?',
    explain: () => 'The same key works again at once, with its scopes. If it leaked, rotate it instead.',
    destructive: false,
  },
};

function KeyActions({ appId, apiKey }: { appId: number; apiKey: ApiKey }) {
  const action = useKeyAction(appId);
  const [confirming, setConfirming] = useState<KeyAction | undefined>();
  // What the dialog shows: the action being confirmed, or the last one while it closes.
  const [shownAction, setShownAction] = useState<KeyAction>('rotate');
  const confirm = (chosen: KeyAction) => {
    setShownAction(chosen);
    setConfirming(chosen);
  };
  const [secret, setSecret] = useState<string | undefined>();
  const [warning, setWarning] = useState<string | undefined>();
  const available: KeyAction[] = apiKey.status === 'active' ? ['rotate', 'revoke'] : ['restore', 'rotate'];
  const run = (chosen: KeyAction) =>
    action.mutate(chosen, {
      onSuccess: (answer) => {
        setConfirming(undefined);
        setWarning(answer?.warning ? 'Not every API server confirmed the rotation in time. Some may accept the old key for up to a minute.' : undefined);
        if (answer) setSecret(answer.secret_key);
      },
      // A 503 closes the dialog too: the notice below says what it means.
      onError: () => setConfirming(undefined),
    });
  return (
    <section aria-labelledby="key-actions">
      <h2 id="key-actions">Key actions</h2>
      <div className="button-row">
        {available.map((name) => (
          <button key={name} type="button" className={ACTIONS[name].destructive ? 'button-danger' : 'button-secondary'} onClick={() => confirm(name)}>
            {ACTIONS[name].label}
          </button>
        ))}
      </div>
      {action.error && !(action.error instanceof ApiProblem && action.error.code === 'propagation_unconfirmed') ? (
        <ErrorNotice error={action.error} onRetry={() => action.variables && confirm(action.variables)} />
      ) : null}
      {action.error instanceof ApiProblem && action.error.code === 'propagation_unconfirmed' ? <Unconfirmed onRetry={() => action.variables && run(action.variables)} /> : null}
      {warning ? (
        <p className="notice notice-warning" role="status">
          {warning}
        </p>
      ) : null}
      {secret ? <SecretOnce label="Your new secret key" what="key" secret={secret} onDone={() => setSecret(undefined)} /> : null}
      {/* Always there, opened and closed, so that the browser gives focus back when it closes. */}
      <ConfirmDialog
        open={confirming !== undefined}
        title={ACTIONS[shownAction].title}
        confirmLabel={ACTIONS[shownAction].label}
        destructive={ACTIONS[shownAction].destructive}
        busy={action.isPending}
        onConfirm={() => run(shownAction)}
        onCancel={() => setConfirming(undefined)}
      >
        <p>{ACTIONS[shownAction].explain(apiKey)}</p>
      </ConfirmDialog>
    </section>
  );
}

/** What a 503 propagation_unconfirmed means: saved, not yet confirmed everywhere. */
function Unconfirmed({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="notice notice-warning" role="alert">
      <p>
        <strong>Saved, but not yet confirmed everywhere.</strong> Not every API server confirmed the change in time. Those servers may act on the old
        setting for up to a minute. Try again to confirm it.
      </p>
      <button type="button" className="button-secondary" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

function Scopes({ appId, apiKey }: { appId: number; apiKey: ApiKey }) {
  const [confirmFull, setConfirmFull] = useState(false);
  return (
    <section aria-labelledby="scopes">
      <h2 id="scopes">Scopes</h2>
      <p className="hint">A change applies on every API server by the time it is saved.</p>
      <fieldset className="switches">
        <legend>Full access</legend>
        <KeySwitch
          appId={appId}
          on={apiKey.full_access}
          label="Full access: every scope, including ones added later"
          change={(on) => ({ full_access: on })}
          confirmOn={() => setConfirmFull(true)}
        />
      </fieldset>
      <fieldset className="switches">
        <legend>Scopes{apiKey.full_access ? ' (Full access covers them all)' : ''}</legend>
        {SCOPES.map(({ scope, allows }) => (
          <KeySwitch
            key={scope}
            appId={appId}
            on={apiKey.scopes.includes(scope)}
            label={
              <>
                <code>{scope}</code> <span className="hint">{allows}</span>
              </>
            }
            change={(on) => (on ? { grant: [scope] } : { remove: [scope] })}
          />
        ))}
      </fieldset>
      <FullAccessConfirmation appId={appId} open={confirmFull} onClose={() => setConfirmFull(false)} />
    </section>
  );
}

type ScopeChange = Parameters<ReturnType<typeof useScopeChange>['mutate']>[0];

/**
 * One scope, or Full access, as a switch. It moves at once and the change is sent; if the change
 * is refused the switch moves back and says why. Several may be changed at the same time.
 */
function KeySwitch({ appId, on, label, change, confirmOn }: { appId: number; on: boolean; label: React.ReactNode; change: (on: boolean) => ScopeChange; confirmOn?: () => void }) {
  const mutation = useScopeChange(appId);
  // Set in the same event as the click, so the switch never shows its old position meanwhile.
  const [moving, setMoving] = useState<boolean | undefined>();
  const send = (next: boolean) => {
    setMoving(next);
    mutation.mutate(change(next), { onSettled: () => setMoving(undefined) });
  };
  const shown = moving ?? on;
  return (
    <div>
      <label className="switch">
        <input type="checkbox" role="switch" checked={shown} aria-busy={mutation.isPending} onChange={(event) => (event.target.checked && confirmOn ? confirmOn() : send(event.target.checked))} />
        <span>{label}</span>
        <span role="status" className="switch-status">
          {mutation.isPending ? 'Saving…' : mutation.isSuccess ? 'Saved' : ''}
        </span>
      </label>
      {mutation.error instanceof ApiProblem && mutation.error.code === 'propagation_unconfirmed' ? (
        <Unconfirmed onRetry={() => mutation.variables && mutation.mutate(mutation.variables)} />
      ) : (
        <ErrorNotice error={mutation.error} onRetry={() => mutation.variables && mutation.mutate(mutation.variables)} />
      )}
    </div>
  );
}

function FullAccessConfirmation({ appId, open, onClose }: { appId: number; open: boolean; onClose: () => void }) {
  const grant = useScopeChange(appId);
  return (
    <ConfirmDialog
      open={open}
      title="Give this key Full access?"
      confirmLabel="Give Full access"
      destructive
      busy={grant.isPending}
      onConfirm={() => grant.mutate({ full_access: true }, { onSuccess: onClose })}
      onCancel={onClose}
    >
      <p>The key can then do everything, including deleting user data, and any scope added in the future.</p>
      <ErrorNotice error={grant.error} />
    </ConfirmDialog>
  );
}

const AUDIT_WORDS: Record<string, string> = {
  created: 'Created the key',
  scopes_granted: 'Granted',
  scopes_removed: 'Removed',
  full_access_granted: 'Gave Full access',
  full_access_removed: 'Took Full access away',
  revoked: 'Revoked the key',
  restored: 'Restored the key',
  rotated: 'Rotated the key',
};

function AuditTrail({ appId }: { appId: number }) {
  const audit = useKeyAudit(appId);
  return (
    <section aria-labelledby="audit">
      <h2 id="audit">Audit trail</h2>
      {audit.isPending ? <Loading what="the audit trail" /> : null}
      <ErrorNotice error={audit.error} onRetry={() => audit.refetch()} />
      {audit.data ? (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.items.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <RelativeTime value={entry.created_at} />
                  </td>
                  <td>{entry.actor.name ?? (entry.actor.member_id ? 'A removed member' : 'The system')}</td>
                  <td>
                    {AUDIT_WORDS[entry.action] ?? entry.action} {entry.scopes.length > 0 ? entry.scopes.map((scope) => <code key={scope}>{scope} </code>) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
