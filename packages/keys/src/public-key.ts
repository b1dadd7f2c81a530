import { randomBytes } from 'node:crypto';
import { base62 } from './base62.js';

/** Public keys identify an app to its widget; they are not secret. */
export const PUBLIC_KEY_PREFIX = 'pk_live_';
const PUBLIC_KEY_SHAPE = /^pk_live_[0-9A-Za-z]{22}$/;

export function generatePublicKey(): string {
  return PUBLIC_KEY_PREFIX + base62(randomBytes(16), 22);
}

export function isWellFormedPublicKey(text: string): boolean {
  return PUBLIC_KEY_SHAPE.test(text);
}
