import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SignJWT, exportJWK } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { AuthorityKeys, AuthorityKeysUnavailable } from './authority-keys.js';

/** A signing key of the authority's, as a key set, and a token signed with it. */
async function authorityKey(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwks: JSONWebKeySet = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' }] };
  const token = () => new SignJWT({}).setProtectedHeader({ alg: 'EdDSA', kid }).setIssuer('authority').setAudience('dashboard').setExpirationTime('5m').sign(privateKey);
  return { jwks, token };
}

const verifying = { issuer: 'authority', audience: 'dashboard', algorithms: ['EdDSA'] };

/** The authority's answers to key fetches, in turn, counting them; each waits for `gate` when given. */
function authority(answers: Array<() => Promise<JSONWebKeySet>>) {
  const calls = { count: 0 };
  const fetch = () => {
    const answer = answers[Math.min(calls.count, answers.length - 1)]!;
    calls.count += 1;
    return answer();
  };
  return { fetch, calls };
}

describe('AuthorityKeys', () => {
  it('fetches the keys once for every token that waits for them at the same moment', async () => {
    const { jwks, token } = await authorityKey('k1');
    const { fetch, calls } = authority([async () => jwks]);
    const keys = new AuthorityKeys(fetch);
    await Promise.all(Array.from({ length: 10 }, async () => keys.verify(await token(), verifying)));
    expect(calls.count).toBe(1);
  });

  it('goes on verifying with the keys it holds while old ones are fetched again, and when that fetch fails', async () => {
    const { jwks, token } = await authorityKey('k1');
    let now = 0;
    const { fetch, calls } = authority([async () => jwks, async () => Promise.reject(new Error('authority away'))]);
    const keys = new AuthorityKeys(fetch, { maxAgeMs: 600_000, now: () => now });
    await keys.verify(await token(), verifying);
    now += 601_000;
    await expect(keys.verify(await token(), verifying)).resolves.toBeDefined();
    expect(calls.count).toBe(2);
  });

  it('says the keys are unavailable, not that the token is bad, when it holds none and cannot fetch them', async () => {
    const { token } = await authorityKey('k1');
    const keys = new AuthorityKeys(async () => Promise.reject(new Error('authority away')));
    await expect(keys.verify(await token(), verifying)).rejects.toBeInstanceOf(AuthorityKeysUnavailable);
  });

  it("fetches again for a token naming a key it does not hold, but not more than every 30 seconds", async () => {
    const first = await authorityKey('k1');
    const second = await authorityKey('k2');
    let now = 0;
    const { fetch, calls } = authority([async () => first.jwks, async () => second.jwks]);
    const keys = new AuthorityKeys(fetch, { now: () => now });
    await keys.verify(await first.token(), verifying);
    await expect(keys.verify(await second.token(), verifying)).rejects.not.toBeInstanceOf(AuthorityKeysUnavailable);
    expect(calls.count).toBe(1);
    now += 31_000;
    await expect(keys.verify(await second.token(), verifying)).resolves.toBeDefined();
    expect(calls.count).toBe(2);
  });
});
