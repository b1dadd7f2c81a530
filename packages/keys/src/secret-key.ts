import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { base62 } from './base62.js';

/**
 * Secret keys look like `sk_live_<33 random base62><6 checksum base62>`:
 * 192 bits of randomness, and a CRC32 checksum so a mistyped or made-up key is refused
 * without a database lookup and secret scanners can recognise a leaked one.
 */
export const SECRET_KEY_PREFIX = 'sk_live_';
const RANDOM_BYTES = 24;
const RANDOM_WIDTH = 33; // ceil(192 / log2(62))
const CHECKSUM_WIDTH = 6; // ceil(32 / log2(62))
const SECRET_KEY_SHAPE = new RegExp(`^${SECRET_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_WIDTH + CHECKSUM_WIDTH}}$`);

function checksum(text: string): string {
  const sum = crc32(Buffer.from(text, 'utf8'));
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(sum >>> 0);
  return base62(bytes, CHECKSUM_WIDTH);
}

export interface NewSecretKey {
  /** The full key: shown once to the member, never stored. */
  secret: string;
  /** SHA-256 of the key, hex: what is stored and looked up. */
  hash: string;
  /** A short, non-secret label for the dashboard ("sk_live_AbCd…"). */
  displayPrefix: string;
}

export function generateSecretKey(): NewSecretKey {
  const body = SECRET_KEY_PREFIX + base62(randomBytes(RANDOM_BYTES), RANDOM_WIDTH);
  const secret = body + checksum(body);
  return { secret, hash: hashSecretKey(secret), displayPrefix: displayPrefixOf(secret) };
}

/** True when the text has the shape of a secret key and its checksum matches. */
export function isWellFormedSecretKey(text: string): boolean {
  if (!SECRET_KEY_SHAPE.test(text)) return false;
  const body = text.slice(0, text.length - CHECKSUM_WIDTH);
  return checksum(body) === text.slice(-CHECKSUM_WIDTH);
}

export function hashSecretKey(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function displayPrefixOf(secret: string): string {
  return `${secret.slice(0, SECRET_KEY_PREFIX.length + 4)}…`;
}
