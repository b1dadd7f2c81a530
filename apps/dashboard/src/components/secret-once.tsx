import { useEffect, useId, useRef } from 'react';
import { useBlocker } from 'react-router';
import { useEventListener } from 'usehooks-ts';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { secretShown } from './secrets-on-screen';

/**
 * A secret the service shows this once: a new API key or a webhook signing secret. It stays on
 * screen until the member says it is copied; leaving the page, closing the tab or signing out asks
 * first. Focus moves to it, so a screen reader says it appeared.
 */
export function SecretOnce({ label, secret, what, onDone }: { label: string; secret: string; what: string; onDone: () => void }) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const blocker = useBlocker(true);
  useEventListener('beforeunload', (event) => event.preventDefault());
  useEffect(() => {
    heading.current?.focus();
    return secretShown();
  }, []);
  return (
    <section className="secret-once" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
        {label}
      </h2>
      <p className="warning">
        <strong>This {what} will not be shown again.</strong> Copy it now and keep it somewhere safe, such as your secrets manager.
      </p>
      <div className="secret-row">
        <label htmlFor={`${id}-value`} className="visually-hidden">
          {label}
        </label>
        <input id={`${id}-value`} className="secret-value" readOnly value={secret} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={secret} label={`Copy ${what}`} />
      </div>
      <button type="button" className="button-primary" onClick={onDone}>
        I have copied it
      </button>
      <ConfirmDialog
        open={blocker.state === 'blocked'}
        title={`Leave without the ${what}?`}
        confirmLabel="Leave"
        destructive
        onConfirm={() => blocker.proceed?.()}
        onCancel={() => blocker.reset?.()}
      >
        <p>The {what} will not be shown again. If you leave now without copying it, you will have to rotate again.</p>
      </ConfirmDialog>
    </section>
  );
}
