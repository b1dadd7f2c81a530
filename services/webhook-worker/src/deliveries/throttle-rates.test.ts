import { describe, expect, it } from '@jest/globals';
import { ThrottleRates } from './throttle-rates.js';

describe('ThrottleRates', () => {
  it('counts an endpoint over about the last second: the second running, or the one before if it counted more', () => {
    const rates = new ThrottleRates();
    const t = 1_000_000;
    expect([1, 2, 3].map((n) => rates.note('a', t + n * 100))).toEqual([1, 2, 3]);
    // The next second starts from none, but the one before still counts.
    expect(rates.note('a', t + 1100)).toBe(3);
    expect(rates.note('a', t + 1200)).toBe(3);
    expect(rates.note('a', t + 1300)).toBe(3);
    expect(rates.note('a', t + 1400)).toBe(4);
    // After a quiet second, only the new one.
    expect(rates.note('a', t + 3500)).toBe(1);
  });

  it('counts each endpoint on its own', () => {
    const rates = new ThrottleRates();
    for (let n = 0; n < 5; n += 1) rates.note('busy', 1000 + n);
    expect(rates.note('quiet', 1010)).toBe(1);
    expect(rates.note('busy', 1010)).toBe(6);
  });
});
