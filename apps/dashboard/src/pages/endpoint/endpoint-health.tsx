import { RelativeTime } from '../../components/relative-time';
import type { Endpoint } from '../webhooks/webhook-queries';
import type { AuditEntry } from './recovery-queries';

const percent = (rate: number | null) => (rate === null ? 'No attempts' : `${Math.round(rate * 1000) / 10}%`);

/** Who paused an endpoint when the service did, and why; a member is named instead. */
const PAUSED_BY: Partial<Record<NonNullable<Endpoint['pause']>['reason'], string>> = {
  failing: 'by the service: every attempt had failed for the pause period.',
  plan: "by the service: the team's plan includes fewer webhook endpoints, and this one is newer than those.",
};

/** How the endpoint has answered, and whether it is paused, since when and why. */
export function EndpointHealth({ endpoint }: { endpoint: Endpoint }) {
  const { health, pause } = endpoint;
  return (
    <>
      {pause ? (
        <div role="status" className="notice notice-warning">
          <p>
            <strong>Paused</strong> <RelativeTime value={pause.paused_at} />,{' '}
            {PAUSED_BY[pause.reason] ?? `by ${pause.paused_by ?? 'a member'}.`}
          </p>
          <p>
            Its events are kept as held deliveries, not sent.{' '}
            {pause.reason === 'plan'
              ? "It resumes by itself when the team's plan includes it again, or an older endpoint is deleted. Then Recover sends what was held."
              : 'Resume it from the endpoint menu, then Recover sends what was held.'}
          </p>
        </div>
      ) : null}
      <section aria-labelledby="health">
        <h2 id="health">Health</h2>
        <dl className="facts">
          <dt>Last success</dt>
          <dd>
            <RelativeTime value={health.last_success_at} />
          </dd>
          <dt>Failing since</dt>
          <dd>{health.failing_since ? <RelativeTime value={health.failing_since} /> : 'Not failing'}</dd>
          <dt>Success rate, last day</dt>
          <dd>
            {percent(health.success_rate_last_day)} <span className="hint">of {health.attempts_last_day} attempts</span>
          </dd>
        </dl>
      </section>
    </>
  );
}

const ACTION_WORDS: Record<AuditEntry['action'], string> = {
  paused: 'Paused',
  resumed: 'Resumed',
  recovery_started: 'Recovery started',
  recovery_cancelled: 'Recovery cancelled',
  recovery_finished: 'Recovery finished',
};

/** The endpoint's entries in the app's webhook audit: who paused, resumed or recovered it, and when. */
export function EndpointActivity({ entries }: { entries: AuditEntry[] }) {
  return (
    <section aria-labelledby="activity">
      <h2 id="activity">Activity</h2>
      {entries.length === 0 ? <p>Nothing paused, resumed or recovered yet.</p> : null}
      <ul className="activity">
        {entries.map((entry) => (
          <li key={entry.id}>
            <strong>{ACTION_WORDS[entry.action]}</strong> by {entry.actor ?? 'the service'}, <RelativeTime value={entry.created_at} />
            {entry.detail ? <>. {entry.detail}</> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
