import type { SuggestionStatus, TicketStatus } from '@feedback/contracts';
import { ApiError } from '../http/api-error.js';

/**
 * Where each status may go next. Suggestions move along the board (open -> under review ->
 * planned -> in progress -> completed), can be declined until work starts, and can be reopened;
 * tickets wait on the customer (pending), get solved, and close for good.
 */
export const SUGGESTION_TRANSITIONS: Record<SuggestionStatus, readonly SuggestionStatus[]> = {
  open: ['under_review', 'planned', 'declined'],
  under_review: ['open', 'planned', 'declined'],
  planned: ['under_review', 'in_progress', 'declined'],
  in_progress: ['planned', 'completed'],
  completed: ['in_progress'],
  declined: ['open'],
};

export const TICKET_TRANSITIONS: Record<TicketStatus, readonly TicketStatus[]> = {
  open: ['pending', 'solved', 'closed'],
  pending: ['open', 'solved', 'closed'],
  solved: ['open', 'closed'],
  closed: [],
};

export function assertTransition<S extends string>(table: Record<S, readonly S[]>, from: S, to: S, what: string): void {
  if (table[from].includes(to)) return;
  const allowed = table[from];
  throw new ApiError(
    'invalid_transition',
    `A ${what} cannot go from "${from}" to "${to}". ${allowed.length > 0 ? `From "${from}" it can go to: ${allowed.join(', ')}.` : `"${from}" is final.`}`,
    { status_before: from, status_requested: to, allowed_statuses: allowed },
  );
}
