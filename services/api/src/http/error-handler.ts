import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ContractViolation } from '@feedback/contracts';
import { isDatabaseUnavailable, isTransactionConflict } from '@feedback/database';
import { redactText, redactValue } from '@feedback/logging';
import { RpcError, RpcTimeoutError } from '@feedback/messaging';
import { invalidSession } from '../auth/member-auth.js';
import { ApiError, ERROR_STATUS } from './api-error.js';
import type { ErrorCode } from './api-error.js';

/** Codes another service may answer with that mean the same to a client; the rest are our fault. */
const PASSED_THROUGH_RPC_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'insufficient_role',
  'not_found',
  'email_taken',
  'last_owner',
  'service_unavailable',
  'invalid_credentials',
  'propagation_unconfirmed',
  'unsafe_url',
  'plan_limit_reached',
  'delivery_in_progress',
  'delivery_withheld',
  'secret_rotated_meanwhile',
  'invalid_cursor',
  'too_many_test_deliveries',
  'endpoint_paused',
  'recovery_in_progress',
  'recovery_ended',
  'validation_failed',
  // The authority's password hashing is full: a flood of sign-ups or sign-ins.
  'rate_limited',
]);

/** Violations an answer lists at most; past them, `violations_omitted` says how many more. */
export const MAX_VIOLATIONS = 20;

/** Writes every error body the same way: `{ error, message, ...details }`. */
export const errorHandler: ErrorRequestHandler = (error, request, response, _next) => {
  const apiError = toApiError(error);
  if (apiError.status >= 500) request.log.error('request failed', { error });
  for (const [name, value] of Object.entries(apiError.headers)) response.setHeader(name, value);
  response.status(apiError.status).json({ error: apiError.code, message: apiError.message, ...apiError.details });
};

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ContractViolation) {
    // Field names are what the client sent, a key pasted as one included: redacted like a log line.
    // The first few only: a body of 20,000 unknown fields is not answered with 20,000 lines.
    const violations = redactValue(error.violations.slice(0, MAX_VIOLATIONS)) as typeof error.violations;
    const first = violations[0];
    // Query contracts are named `…-query`; the others describe bodies.
    const part = error.contract.endsWith('-query') ? 'query' : 'body';
    return new ApiError('validation_failed', `The request ${part} is invalid: ${first?.field || part} ${first?.message ?? ''}`.trim(), {
      field: first?.field ?? '',
      violations,
      ...(error.violations.length > MAX_VIOLATIONS ? { violations_omitted: error.violations.length - MAX_VIOLATIONS } : {}),
    });
  }
  if (error instanceof RpcTimeoutError) {
    return new ApiError('service_unavailable', 'A service we depend on did not answer in time. Retry shortly.', {}, { 'Retry-After': '1' });
  }
  // The database down, unreachable, or every connection busy past the pool's wait: nothing was done.
  if (isDatabaseUnavailable(error)) {
    return new ApiError('service_unavailable', 'The service is briefly unable to reach its data. Retry shortly.', {}, { 'Retry-After': '1' });
  }
  // A transaction PostgreSQL ended to break a deadlock, still ending so after its retries: nothing was changed.
  if (isTransactionConflict(error)) {
    return new ApiError('service_unavailable', 'The request met other changes to the same records and was not applied. Retry shortly.', {}, { 'Retry-After': '1' });
  }
  // The authority's own check of the session: ended at sign-out, past its end, or its member gone.
  if (error instanceof RpcError && error.code === 'session_invalid') return invalidSession(error.message);
  // A request the other service refused by its contract: the client sent it, so it is a 400 (its
  // text names what the client sent, redacted as above).
  if (error instanceof RpcError && error.code === 'contract_violation') return new ApiError('validation_failed', redactText(error.message));
  if (error instanceof RpcError && PASSED_THROUGH_RPC_CODES.has(error.code) && error.code in ERROR_STATUS) {
    const retry = error.code === 'service_unavailable' || error.code === 'rate_limited';
    return new ApiError(error.code as ErrorCode, error.message, {}, retry ? { 'Retry-After': '1' } : {});
  }
  const { type, status } = (error ?? {}) as { type?: string; status?: number };
  if (type === 'entity.parse.failed') return new ApiError('malformed_json', 'The request body is not valid JSON.');
  if (type === 'entity.too.large') return new ApiError('payload_too_large', 'The request body is too large.');
  if (status === 415 || type === 'encoding.unsupported') {
    return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  }
  if (status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  // The router and body-parser mark what the client got wrong with a 4xx status (a path that is
  // not valid percent-encoding, for one): never our fault, so never a 500.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('validation_failed', error instanceof URIError ? 'The request path is not valid percent-encoding.' : 'The request could not be read.');
  }
  return new ApiError('internal_error', 'Something went wrong on our side. Retry later.');
}

export const notFound: RequestHandler = (request, _response, next) => {
  // The path as sent, but never a key pasted into it: no answer holds a key.
  next(new ApiError('not_found', `No route ${request.method} ${redactText(request.path)}.`));
};
