import { useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice';

/** Moves a record to one of the statuses it may go to now; none is offered when it is final. */
export function StatusChanger<S extends string>({
  allowed,
  words,
  busy,
  error,
  onChange,
}: {
  allowed: readonly S[];
  words: Record<S, string>;
  busy: boolean;
  error: unknown;
  onChange: (status: S) => void;
}) {
  const id = useId();
  const [chosen, setChosen] = useState<S | ''>('');
  if (allowed.length === 0) return <p className="hint">This status is final.</p>;
  return (
    <form
      className="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen) onChange(chosen);
      }}
    >
      <div className="field">
        <label htmlFor={id}>Move to</label>
        <select id={id} value={chosen} onChange={(event) => setChosen(event.target.value as S | '')}>
          <option value="">Choose a status</option>
          {allowed.map((status) => (
            <option key={status} value={status}>
              {words[status]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button-primary" disabled={busy || !chosen}>
        {busy ? 'Moving…' : 'Change status'}
      </button>
      <ErrorNotice error={error} onRetry={() => chosen && onChange(chosen)} />
    </form>
  );
}
