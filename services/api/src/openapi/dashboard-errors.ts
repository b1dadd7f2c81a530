import { ERROR_STATUS } from '../http/api-error.js';
import type { ErrorCode } from '../http/api-error.js';

/**
 * The error answers of /dashboard/v1 operations, each named by the codes it may carry: a client
 * generated from the document then knows, per operation and status, which `error` values can come.
 */

/** What each code means to a member of the dashboard, for the answers' descriptions. */
const MEANING: Record<ErrorCode, string> = {
  malformed_json: 'the body is not JSON, or is a bare string, number or null',
  validation_failed: 'a field, path or query parameter breaks its rules (`field` names it)',
  missing_api_key: 'no secret key was sent',
  invalid_api_key: 'the secret key is not one',
  revoked_api_key: 'the secret key is revoked',
  invalid_session: 'no session token, or one forged, expired, or of a session that has ended: sign in again',
  invalid_public_key: 'the public key is not one',
  invalid_credentials: 'the email or the password is wrong',
  insufficient_scope: 'the key lacks the scope',
  insufficient_role: "the member's role does not allow this",
  plan_upgrade_required: 'the plan does not include the REST API',
  not_found: 'no such record in this team (also an id that is not one)',
  method_not_allowed: 'the path takes other methods, listed in `Allow`',
  email_taken: 'a member with this email exists',
  last_owner: 'a team keeps at least one Owner',
  user_erased: 'the answer named a user since erased',
  invalid_transition: 'the status cannot move there (`allowed_statuses` says where it can)',
  ticket_closed: 'the ticket is closed',
  delivery_in_progress: 'the delivery has not settled yet',
  delivery_withheld: 'the delivery names an erased user',
  secret_rotated_meanwhile: 'another rotation at the same moment won; the secret it showed is the one in use',
  endpoint_paused: 'the endpoint is paused: resume it first',
  recovery_in_progress: 'a recovery of this endpoint is running: wait for it, or cancel it',
  recovery_ended: 'the recovery has ended already',
  upgrade_required: 'this address takes a WebSocket connection only (`Upgrade: websocket`)',
  idempotency_in_progress: 'the first request with this Idempotency-Key has not finished',
  idempotency_key_reused: 'the Idempotency-Key came with another request',
  invalid_cursor: 'a cursor this list did not give',
  unsafe_url: 'the URL is not https to a public host',
  plan_limit_reached: 'the plan includes no more webhook endpoints',
  payload_too_large: 'the body is over 256 KiB',
  unsupported_media_type: 'the body was not sent as application/json',
  rate_limited: 'too many failed authentications from this address, or, on sign-up and sign-in, too many attempts from this address or for this account, or more at once than passwords can be checked; see Retry-After',
  too_many_test_deliveries: 'five test deliveries of this endpoint are still waiting or being retried',
  internal_error: 'a fault of ours; retry later, quoting X-Request-Id',
  service_unavailable: 'a service did not answer in time, or a change met another; nothing was done unless the route says otherwise; retry',
  propagation_unconfirmed: 'the change is saved, but not every API server confirmed it in time; retry to confirm',
};

/** Fields some codes carry beside `error` and `message`. */
const field = { type: 'string', description: 'The offending field (JSON Pointer) or parameter.' } as const;
/** `validation_failed`'s list of problems, in every error schema of the document. */
export const violationsSchema = {
  type: 'array',
  description: 'With validation_failed on a body: the problems found, 20 at most, the first of them also in `field` and `message`.',
  items: {
    type: 'object',
    required: ['field', 'message'],
    properties: { field: { type: 'string', description: 'JSON Pointer; empty for the whole body.' }, message: { type: 'string' } },
  },
} as const;

/** With `violations`: how many problems were found beyond those listed. */
export const violationsOmittedSchema = {
  type: 'integer',
  description: 'With validation_failed: how many problems found beyond the 20 listed, when there were more.',
} as const;

const DETAILS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  validation_failed: { field, violations: violationsSchema, violations_omitted: violationsOmittedSchema },
  invalid_cursor: { field },
  invalid_transition: {
    status_before: { type: 'string' },
    status_requested: { type: 'string' },
    allowed_statuses: { type: 'array', items: { type: 'string' }, description: 'Where the status can move from where it is.' },
  },
  method_not_allowed: { allowed_methods: { type: 'array', items: { type: 'string' } } },
};

/** Headers some codes come with. */
const HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  invalid_session: { 'WWW-Authenticate': 'Bearer realm="dashboard".' },
  method_not_allowed: { Allow: 'The methods this path takes.' },
  rate_limited: { 'Retry-After': 'Seconds to wait before trying again.' },
  service_unavailable: { 'Retry-After': 'Seconds to wait before retrying.' },
};

/** Codes any /dashboard/v1 route may answer. */
const ANY_ROUTE: readonly ErrorCode[] = ['validation_failed', 'method_not_allowed', 'rate_limited', 'internal_error', 'service_unavailable'];
/** What a route that reads a body may answer besides. */
export const BODY_CODES: readonly ErrorCode[] = ['malformed_json', 'payload_too_large', 'unsupported_media_type'];

/** How a route is reached: without a session (sign-up, sign-in), or with one, with a body or without. */
export interface RouteKind {
  public?: boolean;
  body?: boolean;
}

/** Every code a route may answer: what any route may, and its own. */
export function dashboardCodes(kind: RouteKind, own: readonly ErrorCode[]): ErrorCode[] {
  return [...new Set([...ANY_ROUTE, ...(kind.public ? [] : ['invalid_session' as const]), ...(kind.body ? BODY_CODES : []), ...own])];
}

/** The error answers of an operation, one per status, each naming its codes and their fields. */
export function errorAnswers(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const answers: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const these = byStatus.get(status)!;
    const headers = Object.assign({}, ...these.map((code) => HEADERS[code] ?? {})) as Record<string, string>;
    answers[String(status)] = {
      description: these.map((code) => `\`${code}\`: ${MEANING[code]}.`).join(' '),
      ...(Object.keys(headers).length > 0
        ? { headers: Object.fromEntries(Object.entries(headers).map(([name, about]) => [name, { description: about, schema: { type: 'string' } }])) }
        : {}),
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['error', 'message'],
            properties: {
              error: { type: 'string', enum: these, description: 'Stable code: branch on this.' },
              message: { type: 'string', description: 'Human-readable; do not branch on it.' },
              ...Object.assign({}, ...these.map((code) => DETAILS[code] ?? {})),
            },
          },
        },
      },
    };
  }
  return answers;
}
