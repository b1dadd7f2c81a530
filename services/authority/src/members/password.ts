import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

/**
 * Member passwords are hashed with scrypt, a memory-hard function built into Node: each guess
 * costs an attacker 32 MiB and tens of milliseconds. The parameters are stored with the hash so
 * they can be raised later without invalidating old hashes.
 */
const DEFAULTS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULTS);
  return ['scrypt', DEFAULTS.N, DEFAULTS.r, DEFAULTS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Hash of a password nobody has, verified against when the email is unknown, so timing does not tell. */
export const UNKNOWN_MEMBER_HASH = await hashPassword(randomBytes(16).toString('hex'));
