/**
 * Secrets must never reach a log line (specification section 5, rule 7). Redaction runs on every
 * entry, both on field names that usually hold secrets and on values that look like one of our
 * secret formats, so a secret that slips into a message or an error text is still masked.
 */
// `session`: a dashboard command carries the member's signed session token under that name.
const SECRET_FIELD = /secret|password|passwd|authorization|cookie|token|api[_-]?key|key[_-]?hash|signature|^session$/i;

const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/sk_live_[A-Za-z0-9]+/g, 'sk_live_[redacted]'],
  [/whsec_[A-Za-z0-9+/=_-]+/g, 'whsec_[redacted]'],
  [/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  // A JSON Web Token (a member session) anywhere else: its header is base64url JSON, so "eyJ".
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '[redacted-jwt]'],
  // SHA-256 hashes of keys and HMAC signatures are 64 hex characters.
  [/\b[a-f0-9]{64}\b/gi, '[redacted-hex]'],
];

export const REDACTED = '[redacted]';

/**
 * What every secret above must contain, in one pass: most text holds none, and is then returned
 * without running each pattern. Looser than the patterns (any letter case, no word bounds), never
 * stricter. The shortest secret matched is 7 characters.
 */
const MAYBE_SECRET = /sk_live_[A-Za-z0-9]|whsec_[A-Za-z0-9+/=_-]|bearer\s|eyJ[A-Za-z0-9_-]*\.|[a-f0-9]{64}/i;
const SHORTEST_SECRET = 7;

export function redactText(text: string): string {
  if (text.length < SHORTEST_SECRET || !MAYBE_SECRET.test(text)) return text;
  let result = text;
  for (const [pattern, replacement] of SECRET_VALUE_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

export function redactValue(value: unknown, depth = 0): unknown {
  return redact(value, depth, false);
}

/** Whether a field's name says it holds a secret, kept per name: log lines use a few names again and again. */
const secretFields = new Map<string, boolean>();

function isSecretField(key: string): boolean {
  let secret = secretFields.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (secretFields.size < 1000) secretFields.set(key, secret);
  }
  return secret;
}

/** A field's value as redactValue leaves it in an object that holds it under `key`. */
export function redactField(key: string, value: unknown): unknown {
  return isSecretField(key) && value !== null && value !== undefined ? REDACTED : redact(value, 1, false);
}

/** Fields of a database error that quote row values (pg's, as Prisma's adapter passes them on). */
const ROW_VALUE_FIELDS = new Set(['detail', 'hint', 'where']);

/** `withinError`: a part of an error (its meta, cause, errors), which leaves out ROW_VALUE_FIELDS. */
function redact(value: unknown, depth: number, withinError: boolean): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return redactError(value, depth);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, withinError));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (withinError && ROW_VALUE_FIELDS.has(key)) continue;
    result[key] = SECRET_FIELD.test(key) && item !== null && item !== undefined ? REDACTED : redact(item, depth + 1, withinError);
  }
  return result;
}

/**
 * An error as a log field: its name, message and stack, and what says why it happened, which the
 * message often does not: the system or SQLSTATE `code` (ECONNREFUSED, 57P01), the `cause` it
 * wraps, every error of an AggregateError (Node's connect to a name with several addresses fails
 * with one whose message is empty), Prisma's `meta`. Not pg's `detail`, `hint` or `where`, at any
 * depth of them, which quote row values ("Failing row contains (...)").
 */
function redactError(error: Error, depth: number): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: redactText(error.message), stack: error.stack && redactText(error.stack) };
  const { code, meta } = error as { code?: unknown; meta?: unknown };
  if (typeof code === 'string' || typeof code === 'number') fields['code'] = code;
  if (meta !== undefined) fields['meta'] = redact(meta, depth + 1, true);
  if (error.cause !== undefined) fields['cause'] = redact(error.cause, depth + 1, true);
  if (error instanceof AggregateError) fields['errors'] = error.errors.map((inner: unknown) => redact(inner, depth + 1, true));
  return fields;
}
