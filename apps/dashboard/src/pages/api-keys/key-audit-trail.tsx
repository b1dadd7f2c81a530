import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/page';
import { ExactTime, RelativeTime } from '../../components/relative-time';
import { TableScroll } from '../../components/table-scroll';
import { useKeyAudit } from './api-key-queries';

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

/** Who did what to the key, newest first. */
export function AuditTrail({ appId }: { appId: number }) {
  const audit = useKeyAudit(appId);
  return (
    <section aria-labelledby="audit">
      <h2 id="audit">Audit trail</h2>
      {audit.isPending ? <Loading what="the audit trail" /> : null}
      <ErrorNotice error={audit.error} onRetry={() => audit.refetch()} />
      {audit.data ? (
        <TableScroll label="Audit trail">
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
                    <br />
                    <span className="hint">
                      <ExactTime value={entry.created_at} />
                    </span>
                  </td>
                  <td>{entry.actor.name ?? (entry.actor.member_id ? 'A removed member' : 'The system')}</td>
                  <td>
                    {AUDIT_WORDS[entry.action] ?? entry.action} {entry.scopes.length > 0 ? entry.scopes.map((scope) => <code key={scope}>{scope} </code>) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </section>
  );
}
