import { describe, expect, it } from '@jest/globals';
import { ThrottleRates } from './throttle-rates.js';

describe('ThrottleRates', () => {
  it('counts an endpoint in the second now running, and starts again the next', () => {
    const rates = new ThrottleRates();
    const t = 1_000_000;
    expect([0, 100, 999].map((ms) => rates.note('a', t + ms))).toEqual([1, 2, 3]);
    expect(rates.note('a', t + 1000)).toBe(1);
    expect(rates.note('a', t + 1500)).toBe(2);
    expect(rates.note('a', t + 5000)).toBe(1);
  });

  it('counts each endpoint on its own', () => {
    const rates = new ThrottleRates();
    for (let n = 0; n < 5; n += 1) rates.note('busy', 1000 + n);
    expect(rates.note('quiet', 1010)).toBe(1);
    expect(rates.note('busy', 1010)).toBe(6);
  });
});
