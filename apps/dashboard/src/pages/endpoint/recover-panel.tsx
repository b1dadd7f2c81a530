import { useState } from 'react';
import { ErrorNotice } from '../../components/error-notice';
import { RelativeTime } from '../../components/relative-time';
import { useCancelRecovery, useRecoveries, useStartRecovery } from './recovery-queries';
import type { Recovery } from './recovery-queries';

/** A datetime-local field's value for a time: the member's own clock, to the minute. */
function localInputValue(time: Date): string {
  const local = new Date(time.getTime() - time.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function Progress({ recovery }: { recovery: Recovery }) {
  const settled = recovery.delivered + recovery.failed + recovery.skipped;
  const words = { running: 'Running', finished: 'Finished', cancelled: 'Cancelled' }[recovery.state];
  return (
    <div className="recovery" aria-label="Recovery progress">
      <p>
        <strong>{words}</strong>: {settled} of {recovery.total} done, started <RelativeTime value={recovery.created_at} /> by {recovery.started_by}.
      </p>
      <progress max={Math.max(recovery.total, 1)} value={recovery.total === 0 ? 1 : settled} aria-label={`${settled} of ${recovery.total} redelivered`} />
      <dl className="facts">
        <dt>Delivered</dt>
        <dd>{recovery.delivered}</dd>
        <dt>Failed</dt>
        <dd>{recovery.failed}</dd>
        <dt>Skipped</dt>
        <dd>{recovery.skipped}</dd>
        <dt>Remaining</dt>
        <dd>{recovery.remaining}</dd>
      </dl>
    </div>
  );
}

/**
 * Recover: every delivery that failed for good, or was held while the endpoint was paused, since
 * a time, sent again once each in the background; its progress until it ends, and Cancel.
 */
export function RecoverPanel({ appId, endpointId, paused }: { appId: number; endpointId: string; paused: boolean }) {
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 24 * 3_600_000)));
  const recoveries = useRecoveries(appId, endpointId);
  const start = useStartRecovery(appId, endpointId);
  const cancel = useCancelRecovery(appId, endpointId);
  const latest = recoveries.data?.items[0];
  const running = latest?.state === 'running';
  return (
    <section aria-labelledby="recover">
      <h2 id="recover">Recover</h2>
      <p className="hint">
        Sends again, once each and at the pace the endpoint takes, every delivery since a time that was abandoned or held while the endpoint was paused. Each keeps its
        delivery id, so a receiver that handled one already sees a duplicate.
      </p>
      {paused ? <p className="notice notice-warning">Resume the endpoint first: a paused endpoint takes no deliveries.</p> : null}
      <form
        className="recover-form"
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate({ since: new Date(since).toISOString() });
        }}
      >
        <div className="field">
          <label htmlFor="recover-since">Since</label>
          <input id="recover-since" type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} required />
        </div>
        <button type="submit" className="button-primary" disabled={paused || running || start.isPending}>
          {start.isPending ? 'Starting…' : 'Recover'}
        </button>
      </form>
      <ErrorNotice error={start.error} />
      {latest ? <Progress recovery={latest} /> : null}
      {running ? (
        <button type="button" className="button-secondary" onClick={() => cancel.mutate(latest.id)} disabled={cancel.isPending}>
          Cancel recovery
        </button>
      ) : null}
      <ErrorNotice error={cancel.error} />
    </section>
  );
}
