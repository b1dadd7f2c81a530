import type { components } from '../generated/dashboard-v1';

export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['error'];

/**
 * An answer that was not a success, kept whole: the page branches on `code`, shows `message` only
 * where it has no words of its own, and puts `field` next to the input it names.
 */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';

  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'network_error',
    message: string,
    /** JSON Pointer of the field at fault, as `/url`, when the API names one. */
    readonly field?: string,
    /** Seconds to wait before trying again, from Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** The field named without its pointer's slash: `url` for `/url`. */
  get fieldName(): string | undefined {
    return this.field?.replace(/^\//, '').split('/')[0];
  }

  /** Worth pressing again as it is: the service was busy or unreachable, nothing was refused. */
  get retryable(): boolean {
    return this.code === 'network_error' || this.code === 'service_unavailable' || this.code === 'propagation_unconfirmed' || this.status >= 500;
  }
}

export function problemFrom(response: Response, body: unknown): ApiProblem {
  const retryAfter = Number(response.headers.get('Retry-After'));
  const known = typeof body === 'object' && body !== null && 'error' in body ? (body as ErrorBody) : undefined;
  return new ApiProblem(
    response.status,
    known?.error ?? 'internal_error',
    known?.message ?? `The service answered ${response.status}.`,
    known?.field,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}
