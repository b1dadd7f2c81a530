import { wordsFor } from '../api/error-words';
import { ApiProblem } from '../api/problem';

/**
 * A refusal in words, announced to screen readers. A request worth repeating as it is (503, a
 * lost connection) offers to try again; what the member typed stays where it was.
 */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const retryable = error instanceof ApiProblem ? error.retryable : true;
  // Saved, only not confirmed everywhere: a warning, not a failure.
  const unconfirmed = error instanceof ApiProblem && error.code === 'propagation_unconfirmed';
  return (
    <div className={unconfirmed ? 'notice notice-warning' : 'notice notice-error'} role="alert">
      <p>{wordsFor(error)}</p>
      {retryable && onRetry ? (
        <button type="button" className="button-secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** Refusals that concern one field although the service names none. */
const FIELD_OF_CODE: Partial<Record<ApiProblem['code'], string>> = { email_taken: 'email', unsafe_url: 'url' };

/** An error for one field, if the service named that field or the refusal concerns it. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiProblem)) return undefined;
  if ((error.fieldName ?? FIELD_OF_CODE[error.code]) !== field) return undefined;
  return wordsFor(error);
}

/** The error left for the form as a whole once `fields` have shown theirs. */
export function formError(error: unknown, fields: readonly string[]): unknown {
  return error && !fields.some((field) => fieldError(error, field)) ? error : undefined;
}
