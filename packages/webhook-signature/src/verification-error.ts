/** Why a webhook failed verification: branch on this, never on the message. */
export type WebhookVerificationReason = 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_tolerance' | 'body_not_raw' | 'missing_secret';

/**
 * The one error `verify` throws. `reason` is stable; the message says how to fix the usual cause.
 * Answer the sender with a 400: the delivery is retried on the sender's schedule.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
