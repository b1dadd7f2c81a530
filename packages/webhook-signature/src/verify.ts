import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER } from './headers.js';
import { signatureHmac } from './hmac.js';
import { WebhookVerificationError } from './verification-error.js';

export interface VerifyOptions {
  /** Largest accepted difference between `t` and the receiver's clock, in seconds, either way: 300 (the default) at most. */
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds since the epoch. Default: `Date.now`. */
  now?: () => number;
}

export interface VerifiedSignature {
  /** The signature's time, in unix seconds. */
  timestamp: number;
}

const SIGNATURE_HEX_LENGTH = 64;

/**
 * Where the comma is in a header of the form of specification section 5,
 * `t=<digits>,v1=<64 characters>`, with nothing before, between or after; -1 for anything else.
 * Whether those 64 are lowercase hex is checked as they are compared (signatureComparison), in
 * the same pass. Scanned by hand, since a regular expression showed in each verification
 * (docs/decisions.md).
 */
function commaOfHeader(header: string): number {
  const comma = header.indexOf(',');
  if (comma < 3 || header.charCodeAt(0) !== 116 /* t */ || header.charCodeAt(1) !== 61 /* = */) return -1;
  for (let i = 2; i < comma; i += 1) {
    const c = header.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  if (header.length !== comma + 4 + SIGNATURE_HEX_LENGTH || !header.startsWith(',v1=', comma)) return -1;
  return comma;
}

/**
 * Checks a delivery's `X-Service-Signature` against the raw body and the endpoint's signing
 * secret. The options are checked first (a `TypeError`: a programming error); then, in a fixed
 * order, body, secret, header form, signature (constant time) and age, the first to fail throwing
 * a `WebhookVerificationError` naming it. Returns the signature's timestamp.
 */
export function verify(
  rawBody: string | Buffer | Uint8Array,
  signatureHeader: string | string[] | undefined | null,
  secret: string,
  options: VerifyOptions = {},
): VerifiedSignature {
  // The caller's own options first: checked only after a genuine signature had passed, a bad
  // tolerance would refuse every real delivery (a 500, retried, abandoned) while forgeries were
  // told signature_mismatch as usual, hiding the mistake.
  const tolerance = validToleranceSeconds(options.toleranceSeconds);
  const clock = options.now ?? Date.now;
  if (typeof clock !== 'function') throw new TypeError(`verify: options.now must be a function returning milliseconds since the epoch (was ${typeof clock})`);
  const now = clock() / 1000;
  // A clock that answers NaN would pass every age check: replay protection off, silently.
  if (!Number.isFinite(now)) throw new TypeError(`verify: options.now() must return milliseconds since the epoch (returned ${now * 1000})`);
  refuseWhiteSpaceAround(secret);
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      'body_not_raw',
      'The body must be the raw request bytes (a string or Buffer), not parsed JSON: the signature covers the exact bytes sent. ' +
        "With Express, use express.raw({ type: 'application/json', limit: '1mb' }) on the webhook route instead of express.json().",
    );
  }
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new WebhookVerificationError('missing_secret', "No signing secret given: pass the endpoint's whsec_ secret, shown when the endpoint was created or its secret rotated.");
  }
  if (typeof signatureHeader !== 'string') {
    throw new WebhookVerificationError(
      'malformed_header',
      signatureHeader === undefined || signatureHeader === null ? `The ${SIGNATURE_HEADER} header is missing: is this request a webhook delivery, and does your proxy pass the header through?` : sentTwice,
    );
  }
  const comma = commaOfHeader(signatureHeader);
  // Node's http (and most servers) join a header sent twice into one value, with ", ".
  if (comma < 0) throw signatureHeader.includes(', t=') ? new WebhookVerificationError('malformed_header', sentTwice) : malformedHeader();
  const timestamp = signatureHeader.slice(2, comma);
  const expected = signatureHmac(secret, timestamp, rawBody).digest('binary');
  const comparison = signatureComparison(expected, signatureHeader, comma + 4);
  if (comparison === 'not_hex') throw malformedHeader();
  if (comparison === 'mismatch') {
    throw new WebhookVerificationError(
      'signature_mismatch',
      "The signature does not match: use this endpoint's current signing secret (rotating it ends the old one at once) and the unmodified request body, byte for byte.",
    );
  }
  const seconds = Number(timestamp);
  if (Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The signature's time is ${Math.round(now - seconds)} s from this machine's clock, more than the ${tolerance} s allowed: ` +
        'a replayed delivery, or a clock out of step (keep it synchronised with NTP).',
    );
  }
  return { timestamp: seconds };
}

/**
 * The tolerance to use (default 300), checked: `Number(process.env.X)` of an unset variable is NaN, and NaN would pass
 * every age check (replay protection off, silently); a negative one would refuse every delivery.
 * Tighter is allowed, looser is not: the library rejects signatures older than five minutes
 * (specification section 5), and a longer window only widens what a replay can use. A
 * programming error, so a TypeError rather than a verification failure.
 */
export function validToleranceSeconds(toleranceSeconds: number | undefined): number {
  const tolerance = toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0 || tolerance > DEFAULT_TOLERANCE_SECONDS) {
    throw new TypeError(`toleranceSeconds must be a number of seconds from 0 to ${DEFAULT_TOLERANCE_SECONDS} (was ${String(tolerance)})`);
  }
  return tolerance;
}

/**
 * A secret read from a file or pasted into a variable often keeps a newline, which no secret has:
 * every signature would be a mismatch, told as a wrong secret or a changed body. Said as what it
 * is, a `TypeError` (the caller's to fix), by `verify` and by the receiver library at start-up.
 */
export function refuseWhiteSpaceAround(secret: unknown): void {
  if (typeof secret === 'string' && secret.trim() !== secret) {
    throw new TypeError('The signing secret has white space around it (a newline kept from a file or a variable?): pass it exactly as shown, whsec_ and what follows.');
  }
}

const sentTwice = `The ${SIGNATURE_HEADER} header was sent more than once: a delivery carries exactly one.`;

const malformedHeader = () =>
  new WebhookVerificationError(
    'malformed_header',
    `The ${SIGNATURE_HEADER} header must be exactly "t=<unix seconds>,v1=<64 lowercase hex characters>": pass the header value unchanged.`,
  );

/**
 * Compares the 32-byte digest (a 'binary' string, one character per byte: cheaper to make than
 * hex or a Buffer) with the 64 characters at `offset` of `header`, and checks they are lowercase
 * hex, in one pass. The comparison has no data-dependent branch or early exit, as
 * crypto.timingSafeEqual, which would need both as Buffers, at a cost that showed
 * (docs/decisions.md); the only branch is on whether the sender's own characters are hex. A hex
 * character's value is its low four bits, plus 9 for a letter (bit 6 set).
 */
function signatureComparison(digest: string, header: string, offset: number): 'match' | 'mismatch' | 'not_hex' {
  let difference = 0;
  let hex = true;
  for (let i = 0; i < digest.length; i += 1) {
    const high = header.charCodeAt(offset + 2 * i);
    const low = header.charCodeAt(offset + 2 * i + 1);
    if (!isLowercaseHex(high) || !isLowercaseHex(low)) hex = false;
    difference |= digest.charCodeAt(i) ^ ((((high & 0xf) + 9 * (high >> 6)) << 4) | ((low & 0xf) + 9 * (low >> 6)));
  }
  if (!hex) return 'not_hex';
  return difference === 0 ? 'match' : 'mismatch';
}

const isLowercaseHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
