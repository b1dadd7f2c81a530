import { describe, expect, it } from '@jest/globals';
import { EndpointSlots } from './endpoint-slots.js';

const options = { concurrency: 8, perEndpoint: 2, struggleAfterMs: 1000, shortWaitMs: 250 };

describe('EndpointSlots', () => {
  it("admits a healthy endpoint's attempts up to its slots, then lines them up while the wait looks short", () => {
    const slots = new EndpointSlots(options);
    expect(slots.admit('a', false)).toBe('now');
    expect(slots.admit('a', false)).toBe('now');
    expect(slots.admit('a', false)).toBe('wait');
    slots.noteAnswer('a', 600, true);
    expect(slots.admit('a', false)).toBe('elsewhere');
    expect(slots.admit('b', false)).toBe('now');
  });

  it('hands a freed slot to the next attempt in its endpoint line', async () => {
    const slots = new EndpointSlots(options);
    slots.admit('a', false);
    slots.admit('a', false);
    const turn = slots.waitForSlot('a');
    expect(slots.waiting).toBe(1);
    slots.release('a', false);
    await expect(turn).resolves.toBe(true);
    expect(slots.waiting).toBe(0);
    expect(slots.admit('a', false)).toBe('wait');
  });

  it("sends a struggling endpoint's attempt from an event elsewhere, and takes at most two of its others at once", () => {
    const slots = new EndpointSlots({ ...options, perEndpoint: 8 });
    slots.noteAnswer('a', 1500, true);
    expect(slots.isStruggling('a')).toBe(true);
    expect(slots.isFailing('a')).toBe(false);
    expect(slots.admit('a', true)).toBe('elsewhere');
    expect(slots.admit('a', false)).toBe('now');
    expect(slots.admit('a', false)).toBe('now');
    expect(slots.admit('a', false)).toBe('elsewhere');
  });

  it('keeps half the worker for healthy endpoints, however many struggle', () => {
    const slots = new EndpointSlots(options);
    for (const endpoint of ['a', 'b', 'c', 'd', 'e']) slots.noteAnswer(endpoint, 10, false);
    expect(['a', 'a', 'b', 'b', 'c'].map((endpoint) => slots.admit(endpoint, false))).toEqual(['now', 'now', 'now', 'now', 'elsewhere']);
    slots.release('a', true);
    expect(slots.admit('c', false)).toBe('now');
  });

  it('turns away the line of an endpoint whose attempt fails', async () => {
    const slots = new EndpointSlots(options);
    slots.admit('a', false);
    slots.admit('a', false);
    const turn = slots.waitForSlot('a');
    slots.noteAnswer('a', 20, false);
    await expect(turn).resolves.toBe(false);
    expect(slots.isFailing('a')).toBe(true);
    expect(slots.waiting).toBe(0);
  });

  it('turns every line away and admits nothing once stopped', async () => {
    const slots = new EndpointSlots(options);
    slots.admit('a', false);
    slots.admit('a', false);
    const turn = slots.waitForSlot('a');
    slots.stop();
    await expect(turn).resolves.toBe(false);
    expect(slots.stopped).toBe(true);
    expect(slots.admit('b', false)).toBe('elsewhere');
  });
});
