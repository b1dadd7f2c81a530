import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { RelativeTime } from '../../components/relative-time';
import { EVENTS } from '../webhooks/webhook-queries';
import type { EventName } from '../webhooks/webhook-queries';
import { STATUSES, statusLabel, useDeliveries } from './delivery-queries';
import type { DeliveryStatus, HistoryFilter } from './delivery-queries';
import { TableScroll } from '../../components/table-scroll';

/** Deliveries newest first, filtered by status and event, paged; refreshing while any is under way. */
export function DeliveryHistory({ appId, endpointId }: { appId: number; endpointId: string }) {
  const [filter, setFilter] = useState<HistoryFilter>({});
  const pages = useCursorPages(JSON.stringify(filter));
  const deliveries = useDeliveries(appId, endpointId, filter, pages.cursor);
  return (
    <section aria-labelledby="history">
      <h2 id="history">Delivery history</h2>
      <div className="filters">
        <div className="field">
          <label htmlFor="status-filter">Status</label>
          <select id="status-filter" value={filter.status ?? ''} onChange={(event) => setFilter({ ...filter, status: (event.target.value || undefined) as DeliveryStatus | undefined })}>
            <option value="">All statuses</option>
            {STATUSES.map(({ status, label }) => (
              <option key={status} value={status}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="event-filter">Event</label>
          <select id="event-filter" value={filter.event ?? ''} onChange={(event) => setFilter({ ...filter, event: (event.target.value || undefined) as EventName | undefined })}>
            <option value="">All events</option>
            {[...EVENTS.map(({ event }) => event), 'webhook.ping' as const].map((event) => (
              <option key={event} value={event}>
                {event}
              </option>
            ))}
          </select>
        </div>
      </div>
      <details className="legend">
        <summary>What the statuses mean</summary>
        <dl className="facts">
          {STATUSES.map(({ status, label, meaning }) => (
            <div key={status} className="fact">
              <dt>{label}</dt>
              <dd>{meaning}</dd>
            </div>
          ))}
        </dl>
      </details>
      <p className="history-refresh">
        <button type="button" className="button-secondary button-small" onClick={() => deliveries.refetch()} disabled={deliveries.isFetching}>
          {deliveries.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>{' '}
        <span className="hint">The history refreshes by itself while a delivery is under way.</span>
      </p>
      {deliveries.isPending ? <Loading what="deliveries" /> : null}
      <ErrorNotice error={deliveries.error} onRetry={() => deliveries.refetch()} />
      {deliveries.data && deliveries.data.items.length === 0 ? <p>No deliveries{filter.status || filter.event ? ' match these filters' : ' yet'}.</p> : null}
      {deliveries.data && deliveries.data.items.length > 0 ? (
        <TableScroll label="Deliveries">
          <table className="history">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Response</th>
                <th scope="col">Attempts</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.items.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    <Link to={`deliveries/${delivery.id}`} aria-label={`${delivery.event} delivery ${delivery.id}`}>
                      {delivery.event}
                    </Link>
                  </th>
                  <td>
                    <span className={`badge badge-${delivery.status}`}>{statusLabel(delivery.status)}</span>
                  </td>
                  <td>{delivery.last_response_code ?? '—'}</td>
                  <td>{delivery.attempts}</td>
                  <td>
                    <RelativeTime value={delivery.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager pages={pages} nextCursor={deliveries.data?.next_cursor} label="Delivery pages" />
    </section>
  );
}
