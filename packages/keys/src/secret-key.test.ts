import { describe, expect, it } from '@jest/globals';
import { generatePublicKey, generateSecretKey, hashSecretKey, isWellFormedPublicKey, isWellFormedSecretKey } from './index.js';

describe('secret keys', () => {
  it('are well formed, unique, and stored only as their SHA-256 hash', () => {
    const first = generateSecretKey();
    const second = generateSecretKey();
    expect(first.secret).toMatch(/^sk_live_[0-9A-Za-z]{39}$/);
    expect(first.secret).not.toBe(second.secret);
    expect(isWellFormedSecretKey(first.secret)).toBe(true);
    expect(first.hash).toBe(hashSecretKey(first.secret));
    expect(first.hash).toMatch(/^[a-f0-9]{64}$/);
    expect(first.displayPrefix).toBe(`${first.secret.slice(0, 12)}…`);
  });

  it('are refused when one character is changed, by the checksum alone', () => {
    const { secret } = generateSecretKey();
    const position = 20;
    const changed = secret.slice(0, position) + (secret[position] === 'a' ? 'b' : 'a') + secret.slice(position + 1);
    expect(isWellFormedSecretKey(changed)).toBe(false);
  });

  it('are refused when the prefix or length is wrong', () => {
    const { secret } = generateSecretKey();
    expect(isWellFormedSecretKey(secret.replace('sk_live_', 'sk_test_'))).toBe(false);
    expect(isWellFormedSecretKey(secret.slice(0, -1))).toBe(false);
    expect(isWellFormedSecretKey('')).toBe(false);
  });
});

describe('public keys', () => {
  it('have the pk_live_ prefix and a fixed shape', () => {
    const key = generatePublicKey();
    expect(isWellFormedPublicKey(key)).toBe(true);
    expect(isWellFormedPublicKey(key + 'x')).toBe(false);
  });
});
