import { describe, expect, it } from '@jest/globals';
import { topologyNames } from '@feedback/messaging';
import { throttleFor, webhookQueueNames } from './webhook-topology.js';

const queues = webhookQueueNames(topologyNames('t.'), [50, 60, 70, 80, 90], [1000, 5000, 30_000]);
const rung = (delay: number) => `t.webhooks.throttle.${delay}ms`;

describe('throttleFor', () => {
  it('climbs a rung at each wait while it should climb, and stays on the last', () => {
    expect(throttleFor(queues, true, undefined)).toEqual({ queue: rung(1000), throttled: 1 });
    expect(throttleFor(queues, true, 1)).toEqual({ queue: rung(5000), throttled: 2 });
    expect(throttleFor(queues, true, 2)).toEqual({ queue: rung(30_000), throttled: 3 });
    expect(throttleFor(queues, true, 3)).toEqual({ queue: rung(30_000), throttled: 4 });
    // Bounded, however long it has been down.
    expect(throttleFor(queues, true, 1_000_000)).toEqual({ queue: rung(30_000), throttled: 4 });
  });

  it('keeps the first rung, and starts the count again, when it should not climb', () => {
    expect(throttleFor(queues, false, 2)).toEqual({ queue: rung(1000), throttled: 0 });
    expect(throttleFor(queues, false, undefined)).toEqual({ queue: rung(1000), throttled: 0 });
  });

  it('counts a header that is not a whole number of waits as none', () => {
    for (const header of ['abc', Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, Buffer.from('2'), { value: 2 }]) {
      expect(throttleFor(queues, true, header)).toEqual({ queue: rung(1000), throttled: 1 });
    }
    // As the management UI sends numbers.
    expect(throttleFor(queues, true, '2')).toEqual({ queue: rung(30_000), throttled: 3 });
  });
});
