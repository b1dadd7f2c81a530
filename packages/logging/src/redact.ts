/**
 * Secrets must never reach a log line (specification section 5, rule 7). Redaction runs on every
 * entry, both on field names that usually hold secrets and on values that look like one of our
 * secret formats, so a secret that slips into a message or an error text is still masked.
 */
const SECRET_FIELD = /secret|password|passwd|authorization|cookie|token|api[_-]?key|key[_-]?hash|signature/i;

const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/sk_live_[A-Za-z0-9]+/g, 'sk_live_[redacted]'],
  [/whsec_[A-Za-z0-9+/=_-]+/g, 'whsec_[redacted]'],
  [/Bearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [redacted]'],
  // SHA-256 hashes of keys and HMAC signatures are 64 hex characters.
  [/\b[a-f0-9]{64}\b/gi, '[redacted-hex]'],
];

export const REDACTED = '[redacted]';

export function redactText(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_VALUE_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message), stack: value.stack && redactText(value.stack) };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = SECRET_FIELD.test(key) && item !== null && item !== undefined ? REDACTED : redactValue(item, depth + 1);
  }
  return result;
}
