import got from 'got';
import type { Got, Response } from 'got';
import { AuthenticationError, FeedbackApiError, FeedbackConnectionError, InsufficientScopeError, RateLimitError } from './errors.js';

export interface TransportOptions {
  secretKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  userAgent: string;
}

export interface CallOptions {
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

function retryAfterSeconds(response: Response): number | undefined {
  const header = response.headers['retry-after'];
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The server's id of the request (X-Request-Id), when it sent one. */
function requestIdOf(response: Response<string>): string | undefined {
  return typeof response.headers['x-request-id'] === 'string' ? response.headers['x-request-id'] : undefined;
}

function errorFor(response: Response<string>): FeedbackApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(response.body);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  const status = response.statusCode;
  const code = typeof body['error'] === 'string' ? body['error'] : `http_${status}`;
  const message = typeof body['message'] === 'string' ? body['message'] : `The API answered ${status}.`;
  const requestId = requestIdOf(response);
  if (status === 401) return new AuthenticationError(status, code, message, requestId, body);
  if (status === 403 && code === 'insufficient_scope') return new InsufficientScopeError(status, message, requestId, body);
  if (status === 429) return new RateLimitError(status, code, message, requestId, body, retryAfterSeconds(response));
  return new FeedbackApiError(status, code, message, requestId, body);
}

/**
 * One HTTP exchange with the API, retried where that is safe: every operation of /api/v1 is
 * (reads and erasures are idempotent; creates carry an Idempotency-Key kept across retries).
 * got computes the delays: exponential with a little noise, or the server's Retry-After.
 */
export class HttpTransport {
  private readonly http: Got;

  constructor(options: TransportOptions) {
    this.http = got.extend({
      prefixUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.secretKey}`, 'user-agent': options.userAgent, accept: 'application/json' },
      timeout: { request: options.timeoutMs },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
      retry: {
        limit: options.maxRetries,
        methods: ['GET', 'POST', 'DELETE'],
        statusCodes: [429, 500, 502, 503, 504],
        maxRetryAfter: options.maxRetryAfterMs,
        backoffLimit: 8000,
      },
    });
  }

  async call<T>(method: 'get' | 'post' | 'delete', path: string, options: CallOptions = {}): Promise<T> {
    let response: Response<string>;
    try {
      response = await this.http(path.replace(/^\//, ''), {
        method: method.toUpperCase() as 'GET',
        searchParams: Object.fromEntries(Object.entries(options.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        headers: options.headers,
        ...(options.body !== undefined ? { json: options.body } : {}),
      });
    } catch (error) {
      // A new error with the message only: got's errors carry the request options, headers included.
      const { code, message } = error as { code?: string; message: string };
      throw new FeedbackConnectionError(`No answer from the API: ${message}`, code);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      if (!response.body) return undefined as T;
      try {
        return JSON.parse(response.body) as T;
      } catch {
        // A 2xx that is not the API's JSON: a proxy or captive portal answered in its place.
        throw new FeedbackApiError(response.statusCode, 'unexpected_response', `The API answered ${response.statusCode} with a body that is not JSON: is something between you and it answering instead?`, requestIdOf(response), {});
      }
    }
    throw errorFor(response);
  }
}
