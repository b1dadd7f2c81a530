/**
 * An answer from the API that is not a success. `code` is the body's `error`, stable: branch on it
 * (or on the subclasses below), never on `message`.
 */
export class FeedbackApiError extends Error {
  override name = 'FeedbackApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The server's id of the request (X-Request-Id): quote it to support. */
    readonly requestId: string | undefined,
    /** The whole error body, for fields such as `field` and `violations` of validation_failed. */
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** 401: the key is unknown, revoked, or replaced by a rotation. */
export class AuthenticationError extends FeedbackApiError {
  override name = 'AuthenticationError';
}

/** 403 `insufficient_scope`: the key lacks the scope this call needs. */
export class InsufficientScopeError extends FeedbackApiError {
  override name = 'InsufficientScopeError';
  /** The scope the call needs. */
  readonly requiredScope: string;
  /** The scopes the key has. */
  readonly grantedScopes: string[];
  /** Where a team Owner or Admin grants it. */
  readonly manageScopesUrl: string;
  readonly docsUrl: string | undefined;

  constructor(status: number, message: string, requestId: string | undefined, body: Record<string, unknown>) {
    super(status, 'insufficient_scope', message, requestId, body);
    this.requiredScope = String(body['required_scope']);
    this.grantedScopes = Array.isArray(body['granted_scopes']) ? body['granted_scopes'].map(String) : [];
    this.manageScopesUrl = String(body['manage_scopes_url']);
    this.docsUrl = typeof body['docs_url'] === 'string' ? body['docs_url'] : undefined;
  }
}

/** 429 after every retry: too many requests. */
export class RateLimitError extends FeedbackApiError {
  override name = 'RateLimitError';

  constructor(
    status: number,
    code: string,
    message: string,
    requestId: string | undefined,
    body: Record<string, unknown>,
    /** The server's Retry-After, in seconds, when it sent one. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(status, code, message, requestId, body);
  }
}

/** No answer: the connection failed or the time limit passed, after every retry. */
export class FeedbackConnectionError extends Error {
  override name = 'FeedbackConnectionError';

  constructor(
    message: string,
    /** The network error code (ECONNREFUSED, ETIMEDOUT, …), when there is one. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}
