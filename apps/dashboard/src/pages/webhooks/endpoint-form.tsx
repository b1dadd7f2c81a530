import { useRef, useState } from 'react';
import { ErrorNotice, fieldError, formError } from '../../components/error-notice';
import { Field, useFocusFirstInvalid } from '../../components/field';
import { EVENTS } from './webhook-queries';
import type { EndpointFields, EventName } from './webhook-queries';

/**
 * Name, URL and events of an endpoint, for creating one or editing it. What was typed stays when
 * the service refuses it; a refusal about the URL shows under the URL.
 */
export function EndpointForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  initial: EndpointFields;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (fields: EndpointFields) => void;
  onCancel?: () => void;
}) {
  const [fields, setFields] = useState(initial);
  const [noEvents, setNoEvents] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(form, error);
  const toggle = (event: EventName, on: boolean) =>
    setFields({ ...fields, events: on ? [...fields.events, event] : fields.events.filter((selected) => selected !== event) });
  return (
    <form
      ref={form}
      className="stacked-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const selected = fields.events.filter((name) => name !== 'webhook.ping');
        setNoEvents(selected.length === 0);
        if (selected.length > 0) onSubmit(fields);
      }}
    >
      <Field label="Name" hint="For your team only." required maxLength={200} value={fields.name} onChange={(event) => setFields({ ...fields, name: event.target.value })} error={fieldError(error, 'name')} />
      <Field
        label="URL"
        type="url"
        inputMode="url"
        required
        placeholder="https://example.com/webhooks"
        hint="A public HTTPS address. Private, internal and localhost addresses are refused."
        value={fields.url}
        onChange={(event) => setFields({ ...fields, url: event.target.value })}
        error={fieldError(error, 'url')}
      />
      <fieldset aria-describedby={noEvents ? 'events-error' : undefined}>
        <legend>Events to send</legend>
        {EVENTS.map(({ event, when }) => (
          <label key={event} className="checkbox">
            <input type="checkbox" checked={fields.events.includes(event)} onChange={(change) => toggle(event, change.target.checked)} />
            <span>
              <code>{event}</code> <span className="hint">{when}</span>
            </span>
          </label>
        ))}
        {noEvents || fieldError(error, 'events') ? (
          <p id="events-error" className="field-error">
            {fieldError(error, 'events') ?? 'Choose at least one event.'}
          </p>
        ) : null}
      </fieldset>
      <ErrorNotice error={formError(error, ['name', 'url', 'events'])} onRetry={() => onSubmit(fields)} />
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button-secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
