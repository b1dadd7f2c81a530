import { namesErasedUserSql } from './erased-users.js';

/** What one attempt needs: the delivery, where it goes, and whether it may go at all. */
export interface AttemptTarget {
  id: string;
  endpointId: string;
  eventType: string;
  status: string;
  attempts: number;
  /** The stored envelope as JSON text: the request body, byte for byte on every attempt. */
  body: string;
  url: string;
  secretEncrypted: string;
  /** The envelope names an end user who has since been erased: it must not be sent. */
  namesErasedUser: boolean;
  /** The endpoint still selects this event (a Send test's ping always counts as selected). */
  selected: boolean;
  /** The event's `created_at`, when fan-out hands the first attempt over itself (for metrics). */
  eventCreatedAt?: string;
  /** Its endpoint is paused: an automatic attempt is held, not made. */
  paused?: boolean;
  /** Its endpoint is a `listen` session that has ended: nothing more is sent. */
  ended?: boolean;
}

/** What may have changed while an attempt waited for its slot: a rotation, a new URL, an erasure, a new selection. */
export type DeliveryNow = Pick<AttemptTarget, 'status' | 'attempts' | 'url' | 'secretEncrypted' | 'namesErasedUser' | 'selected'>;

/**
 * Whether automatic attempt `number` is the one due: later than every attempt made, on a delivery
 * retrying, or pending its first attempt. Pending after attempts were made is a redelivery by
 * hand's, the member's; a settled delivery takes no more automatic attempts.
 */
export function automaticAttemptDue(delivery: Pick<DeliveryNow, 'status' | 'attempts'>, number: number): boolean {
  return delivery.attempts < number && (delivery.status === 'retrying' || (delivery.status === 'pending' && delivery.attempts === 0));
}

/** automaticAttemptDue in SQL, for delivery row `d` and attempt number `number` (a column or a parameter). */
export const automaticAttemptDueSql = (d: string, number: string) =>
  `${d}.attempts < ${number} AND (${d}.status = 'retrying' OR (${d}.status = 'pending' AND ${d}.attempts = 0))`;

/** SQL: whether endpoint row `e` still selects the event of delivery row `d` (Send test's ping always). */
const SELECTED_SQL = `(d.event_type = ANY (e.events) OR d.event_type = 'webhook.ping')`;

/**
 * The columns of a DeliveryNow, from delivery row `d` and endpoint row `e`: key lookups, no payload.
 * A statement reading them takes ErasureHashKey.pads as its parameter $2.
 */
export const DELIVERY_NOW_COLUMNS = `d.status::text AS status, d.attempts, e.url, e.secret_encrypted,
  ${namesErasedUserSql('d', '$2::text[]')} AS names_erased_user, ${SELECTED_SQL} AS selected`;

/** The columns of an AttemptTarget, from delivery row `d` and endpoint row `e`; ErasureHashKey.pads is $2. */
export const ATTEMPT_TARGET_COLUMNS = `d.id, d.endpoint_id, d.event_type, d.payload::text AS body, ${DELIVERY_NOW_COLUMNS},
  e.paused_at IS NOT NULL AS paused, e.ended_at IS NOT NULL AS ended`;

/** A DeliveryNow from a row of DELIVERY_NOW_COLUMNS. */
export function deliveryNowOf(row: Record<string, unknown>): DeliveryNow {
  return {
    status: row['status'] as string,
    attempts: row['attempts'] as number,
    url: row['url'] as string,
    secretEncrypted: row['secret_encrypted'] as string,
    namesErasedUser: row['names_erased_user'] as boolean,
    selected: row['selected'] as boolean,
  };
}

/** An AttemptTarget from a row of ATTEMPT_TARGET_COLUMNS. */
export function attemptTargetOf(row: Record<string, unknown>): AttemptTarget {
  return {
    id: row['id'] as string,
    endpointId: row['endpoint_id'] as string,
    eventType: row['event_type'] as string,
    body: row['body'] as string,
    ...deliveryNowOf(row),
    paused: row['paused'] === true,
    ended: row['ended'] === true,
  };
}
