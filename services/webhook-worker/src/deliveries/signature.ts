import { createHmac } from 'node:crypto';

/**
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>">`
 * (specification section 5). Computed afresh at every attempt, so a retry hours later still
 * passes a receiver's 300-second check.
 */
export function signatureHeader(secret: string, rawBody: string, now: Date = new Date()): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}
