/**
 * Every error the HTTP edge answers with, by stable code. Clients branch on `error`, never on
 * `message`; this table is the one place a code gets its status.
 */
export const ERROR_STATUS = {
  malformed_json: 400,
  validation_failed: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  revoked_api_key: 401,
  invalid_session: 401,
  invalid_public_key: 401,
  invalid_credentials: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  plan_upgrade_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  email_taken: 409,
  last_owner: 409,
  user_erased: 410,
  invalid_transition: 409,
  ticket_closed: 409,
  delivery_in_progress: 409,
  delivery_withheld: 409,
  secret_rotated_meanwhile: 409,
  endpoint_paused: 409,
  recovery_in_progress: 409,
  recovery_ended: 409,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  invalid_cursor: 400,
  unsafe_url: 400,
  plan_limit_reached: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_test_deliveries: 429,
  upgrade_required: 426,
  internal_error: 500,
  service_unavailable: 503,
  propagation_unconfirmed: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields of the body, beside `error` and `message`. */
    readonly details: Record<string, unknown> = {},
    /** Extra response headers (WWW-Authenticate, Retry-After, Allow). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
