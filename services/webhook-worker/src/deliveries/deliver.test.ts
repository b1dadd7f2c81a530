import { describe, expect, it } from '@jest/globals';
import { topologyNames } from '@feedback/messaging';
import { ATTEMPT_HEADER, GIVEN_BEFORE_HEADER, MANUAL_HEADER, PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS, THROTTLED_HEADER, webhookQueueNames } from '../queues/webhook-topology.js';
import { handOff } from './deliver.js';

const queues = webhookQueueNames(topologyNames(''), PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS);

describe('an attempt the worker turned away', () => {
  it('at shutdown, goes straight back to the deliver queue as it came: attempt number, manual flag and throttle count', () => {
    expect(handOff(queues, { [THROTTLED_HEADER]: 2 }, { number: 3, manual: true, givenBefore: false }, { shuttingDown: true })).toEqual({
      queue: queues.deliver,
      headers: { [ATTEMPT_HEADER]: 3, [MANUAL_HEADER]: true, [THROTTLED_HEADER]: 2 },
    });
    // An automatic attempt never throttled carries neither.
    expect(handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { shuttingDown: true })).toEqual({ queue: queues.deliver, headers: { [ATTEMPT_HEADER]: 1 } });
  });

  it('otherwise waits in a throttle queue: the shortest while its endpoint answers, one rung higher each time while it fails', () => {
    expect(handOff(queues, { [THROTTLED_HEADER]: 2 }, { number: 3, manual: false, givenBefore: false }, { climb: false })).toEqual({
      queue: queues.throttles[0]!.queue,
      headers: { [ATTEMPT_HEADER]: 3, [THROTTLED_HEADER]: 0 },
    });
    expect(handOff(queues, { [THROTTLED_HEADER]: 1 }, { number: 3, manual: true, givenBefore: false }, { climb: true })).toEqual({
      queue: queues.throttles[1]!.queue,
      headers: { [ATTEMPT_HEADER]: 3, [MANUAL_HEADER]: true, [THROTTLED_HEADER]: 2 },
    });
  });

  it("past its tenant's share of a slow host, goes to the longest wait at once, whatever it waited before", () => {
    expect(handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { climb: true, toTop: true })).toEqual({
      queue: queues.throttles[queues.throttles.length - 1]!.queue,
      headers: { [ATTEMPT_HEADER]: 1, [THROTTLED_HEADER]: queues.throttles.length + 1 },
    });
  });

  it('stays given before wherever it goes: its attempt may be recorded without its retry queued', () => {
    for (const how of [{ shuttingDown: true } as const, { climb: false }, { climb: true }]) {
      expect(handOff(queues, undefined, { number: 1, manual: false, givenBefore: true }, how).headers).toMatchObject({ [GIVEN_BEFORE_HEADER]: true });
      expect(handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, how).headers).not.toHaveProperty(GIVEN_BEFORE_HEADER);
    }
  });
});
