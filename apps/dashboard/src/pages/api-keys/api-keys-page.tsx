import { useId, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useAppId } from '../../app/app-layout';
import { ROTATION_UNCONFIRMED } from '../../api/error-words';
import { ApiProblem } from '../../api/problem';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { Loading, Page } from '../../components/page';
import { RelativeTime } from '../../components/relative-time';
import { SecretOnce } from '../../components/secret-once';
import { SCOPES, useApiKey, useKeyAction, useScopeChange } from './api-key-queries';
import { AuditTrail } from './key-audit-trail';
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
          <code>{apiKey.display_prefix}</code> <span className="hint">The whole key is shown only once, when it is rotated.</span>
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
  const heading = useRef<HTMLHeadingElement>(null);
  const [confirming, setConfirming] = useState<KeyAction | undefined>();
  // What the dialog shows: the action being confirmed, or the last one while it closes.
  const [shownAction, setShownAction] = useState<KeyAction>('rotate');
  const confirm = (chosen: KeyAction) => {
    setShownAction(chosen);
    setConfirming(chosen);
  };
  const [secret, setSecret] = useState<string | undefined>();
  const [unconfirmedRotation, setUnconfirmedRotation] = useState(false);
  const available: KeyAction[] = apiKey.status === 'active' ? ['rotate', 'revoke'] : ['restore', 'rotate'];
  const run = (chosen: KeyAction) =>
    action.mutate(chosen, {
      onSuccess: (answer) => {
        setConfirming(undefined);
        setUnconfirmedRotation(Boolean(answer?.warning));
        if (answer) setSecret(answer.secret_key);
        // The secret lives only in SecretOnce's props from here, not in the mutation's cache.
        action.reset();
        // The button that opened the dialog is gone (Revoke became Restore): focus goes to the section.
        if (chosen !== 'rotate') requestAnimationFrame(() => heading.current?.focus());
      },
      // A 503 closes the dialog too: the notice below says what it means.
      onError: () => setConfirming(undefined),
    });
  return (
    <section aria-labelledby="key-actions">
      <h2 id="key-actions" ref={heading} tabIndex={-1}>
        Key actions
      </h2>
      <div className="button-row">
        {available.map((name) => (
          <button key={name} type="button" className={ACTIONS[name].destructive ? 'button-danger' : 'button-secondary'} onClick={() => confirm(name)}>
            {ACTIONS[name].label}
          </button>
        ))}
      </div>
      <ErrorNotice
        error={action.error}
        // A change not confirmed everywhere is sent again as it is; anything else is confirmed again.
        onRetry={() => action.variables && (action.error instanceof ApiProblem && action.error.code === 'propagation_unconfirmed' ? run(action.variables) : confirm(action.variables))}
      />
      {unconfirmedRotation ? (
        <p className="notice notice-warning" role="status">
          {ROTATION_UNCONFIRMED}
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

function Scopes({ appId, apiKey }: { appId: number; apiKey: ApiKey }) {
  return (
    <section aria-labelledby="scopes">
      <h2 id="scopes">Scopes</h2>
      <p className="hint">A change applies on every API server once it is saved. If a server does not confirm in time, the page says so.</p>
      <fieldset className="switches">
        <legend>Full access</legend>
        <KeySwitch
          appId={appId}
          on={apiKey.full_access}
          label="Full access: every scope, including ones added later"
          change={(on) => ({ full_access: on })}
          confirmOn={{
            title: 'Give this key Full access?',
            label: 'Give Full access',
            body: 'The key can then do everything, including deleting user data, and any scope added in the future.',
          }}
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
    </section>
  );
}

type ScopeChange = Parameters<ReturnType<typeof useScopeChange>['mutate']>[0];

/**
 * One scope, or Full access, as a switch. It moves at once and the change is sent; if the change
 * is refused the switch moves back and says why. Several may be changed at the same time. A
 * switch with `confirmOn` asks before it is turned on.
 */
function KeySwitch({
  appId,
  on,
  label,
  change,
  confirmOn,
}: {
  appId: number;
  on: boolean;
  label: ReactNode;
  change: (on: boolean) => ScopeChange;
  confirmOn?: { title: string; label: string; body: string };
}) {
  const id = useId();
  const mutation = useScopeChange(appId);
  const [confirming, setConfirming] = useState(false);
  // Set in the same event as the click, so the switch never shows its old position meanwhile.
  const [moving, setMoving] = useState<boolean | undefined>();
  const send = (next: boolean) => {
    setMoving(next);
    mutation.mutate(change(next), { onSettled: () => setMoving(undefined) });
  };
  const saved = mutation.isSuccess || (mutation.error instanceof ApiProblem && mutation.error.code === 'propagation_unconfirmed');
  return (
    <div className="switch-row">
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={moving ?? on}
          aria-describedby={`${id}-status`}
          onChange={(event) => (event.target.checked && confirmOn ? setConfirming(true) : send(event.target.checked))}
        />
        <span>{label}</span>
      </label>
      <span id={`${id}-status`} role="status" className="switch-status">
        {mutation.isPending ? 'Saving…' : saved ? 'Saved' : ''}
      </span>
      <ErrorNotice error={mutation.error} onRetry={() => mutation.variables && mutation.mutate(mutation.variables)} />
      {confirmOn ? (
        <ConfirmDialog
          open={confirming}
          title={confirmOn.title}
          confirmLabel={confirmOn.label}
          destructive
          onConfirm={() => {
            setConfirming(false);
            send(true);
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>{confirmOn.body}</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
