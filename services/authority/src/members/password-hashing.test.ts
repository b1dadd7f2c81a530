import { describe, expect, it } from '@jest/globals';
import { PasswordHashing } from './password-hashing.js';

describe('PasswordHashing', () => {
  it('refuses rate_limited at once, past its line, rather than let a backlog grow; and takes work again once the line moves', async () => {
    const hashing = new PasswordHashing({ concurrency: 1, queue: 2 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = hashing.run(() => held.then(() => 'first'));
    const waiting = [hashing.run(async () => 'second'), hashing.run(async () => 'third')];
    await expect(hashing.run(async () => 'fourth')).rejects.toMatchObject({ code: 'rate_limited' });
    release();
    await expect(Promise.all([running, ...waiting])).resolves.toEqual(['first', 'second', 'third']);
    await expect(hashing.run(async () => 'later')).resolves.toBe('later');
  });
});
