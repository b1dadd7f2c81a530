import { describe, expect, it } from '@jest/globals';
import { RpcError } from '@feedback/messaging';
import type { RpcClient } from '@feedback/messaging';
import { SecretKeyVerifier } from './secret-key-verifier.js';

const identity = { key_id: 'k1', app: { id: 1, public_key: 'pk_live_x' }, team_id: 't1', plan: 'pro' as const, scopes: [], full_access: false };

/** An authority that answers every key check with `answer`, counting the calls. */
function authority(answer: () => unknown) {
  const calls = { count: 0 };
  const rpc = {
    call: async () => {
      calls.count += 1;
      return answer();
    },
  } as unknown as RpcClient;
  return { rpc, calls };
}

describe('SecretKeyVerifier', () => {
  it('caches nothing looked up before this instance hears key changes, though its lease is confirmed', async () => {
    const { rpc, calls } = authority(() => identity);
    let listening = false;
    const verifier = new SecretKeyVerifier(rpc, () => Date.now() + 60_000, {}, () => listening);
    await verifier.verify('a'.repeat(64));
    await verifier.verify('a'.repeat(64));
    expect(calls.count).toBe(2);
    listening = true;
    await verifier.verify('a'.repeat(64));
    await verifier.verify('a'.repeat(64));
    expect(calls.count).toBe(3);
  });

  it('caches no refusal of a revoked key looked up before its lease was confirmed, so a restore made meanwhile holds', async () => {
    const { rpc, calls } = authority(() => {
      throw new RpcError('revoked_key', 'The key is revoked.');
    });
    let trustedUntil = Number.NEGATIVE_INFINITY;
    const verifier = new SecretKeyVerifier(rpc, () => trustedUntil);
    await expect(verifier.verify('b'.repeat(64))).rejects.toMatchObject({ code: 'revoked_key' });
    trustedUntil = Date.now() + 60_000;
    await expect(verifier.verify('b'.repeat(64))).rejects.toMatchObject({ code: 'revoked_key' });
    expect(calls.count).toBe(2);
  });
});
