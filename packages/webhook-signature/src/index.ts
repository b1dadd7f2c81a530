export { refuseWhiteSpaceAround, validToleranceSeconds, verify } from './verify.js';
export type { VerifyOptions, VerifiedSignature } from './verify.js';
export { sign, generateTestHeader } from './sign.js';
export type { SignOptions } from './sign.js';
export { WebhookVerificationError } from './verification-error.js';
export type { WebhookVerificationReason } from './verification-error.js';
export { SIGNATURE_HEADER, EVENT_HEADER, DELIVERY_HEADER, DEFAULT_TOLERANCE_SECONDS } from './headers.js';
