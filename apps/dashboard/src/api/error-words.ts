import { ApiProblem } from './problem';

/**
 * What each refusal means to a person, in the page's own words. Codes not listed here show the
 * service's message, which is written for people too.
 */
const WORDS: Partial<Record<ApiProblem['code'], string>> = {
  network_error: 'The service could not be reached. Check your connection and try again.',
  service_unavailable: 'The service is busy right now. Try again in a moment.',
  propagation_unconfirmed:
    'Saved, but not yet confirmed everywhere: not every API server confirmed the change in time. Those servers may act on the old setting for up to a minute. Try again to confirm it.',
  internal_error: 'Something went wrong on our side. Try again; if it keeps happening, contact support.',
  invalid_credentials: 'The email or the password is wrong.',
  email_taken: 'An account with this email already exists.',
  insufficient_role: 'Your role does not allow this. Ask an Owner or Admin of your team.',
  not_found: 'This no longer exists, or it belongs to another team.',
  last_owner: 'A team needs at least one Owner. Make someone else an Owner first.',
  plan_upgrade_required: 'Your plan does not include this. An Owner can change the plan on the Team page.',
  unsafe_url: 'Webhook URLs must be public HTTPS addresses.',
  invalid_transition: 'That status change is not allowed from the current status.',
  ticket_closed: 'This ticket is closed: it takes no more replies or notes.',
  delivery_in_progress: 'This delivery is still being attempted. Wait until it settles, then redeliver.',
  delivery_withheld: 'This delivery names an erased user, so it is not sent again.',
  secret_rotated_meanwhile: 'Someone else rotated this secret at the same moment. Theirs is the one in use.',
  too_many_test_deliveries: 'Five tests to this endpoint are still waiting. Wait for them before sending another.',
  rate_limited: 'Too many attempts. Wait a minute, then try again.',
  invalid_session: 'Your session has ended. Sign in again.',
  endpoint_paused: 'This endpoint is paused. Resume it first; then Recover sends what was held.',
  recovery_in_progress: 'A recovery of this endpoint is already running. Wait for it to end, or cancel it.',
  recovery_ended: 'This recovery has already ended.',
};

/** A rotation answers its new key even when not every API server confirmed in time. */
export const ROTATION_UNCONFIRMED =
  'The new key is saved, but not every API server confirmed the rotation in time. Those servers may accept the old key for up to a minute.';

/** The sentence to show for an error thrown by a request. */
export function wordsFor(error: unknown): string {
  if (!(error instanceof ApiProblem)) return WORDS.internal_error!;
  if (error.code === 'service_unavailable' && error.retryAfterSeconds) return `The service is busy right now. Try again in ${error.retryAfterSeconds} seconds.`;
  // The service says why a URL is refused (a private address, no HTTPS): that part is worth showing.
  if (error.code === 'unsafe_url') return `${WORDS.unsafe_url} ${error.message}`;
  return WORDS[error.code] ?? error.message;
}
