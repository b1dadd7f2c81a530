import { describe, expect, it } from '@jest/globals';
import { topologyNames } from '@feedback/messaging';
import { ATTEMPT_HEADER, GIVEN_BEFORE_HEADER, MANUAL_HEADER, PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS, THROTTLED_HEADER, WAITED_UNREAD_HEADER, WAITING_FOR_ENDPOINT_HEADER, WAITING_FOR_HOST_HEADER, webhookQueueNames } from '../queues/webhook-topology.js';
import { PACED_RETURN_SECONDS, handOff, pacedRung, singleMessageHeaders, singleMessageOptions, spacedOnFirstRung, unreadHintOf } from './deliver.js';

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

describe('an attempt refused at a busy host that answers well', () => {
  const never = () => 0.99;
  const always = () => 0;

  it('keeps the first rung while the backlog refused there takes the host a few seconds, or its answers are unknown', () => {
    expect(pacedRung(queues, undefined, never)).toBe(0);
    expect(pacedRung(queues, PACED_RETURN_SECONDS, never)).toBe(0);
  });

  it('behind a longer backlog, keeps the first rung only by chance, for as much of it as the host takes in a few seconds', () => {
    // Twenty seconds of the host's places: a quarter keeps coming back each second.
    const draws = (value: number) => () => value;
    expect(pacedRung(queues, 20, draws(0.2))).toBe(0);
    expect(pacedRung(queues, 20, draws(0.3))).toBe(1);
    // Past the longest wait's worth, spread over every longer rung.
    const sequence = (...values: number[]) => () => values.shift()!;
    expect(pacedRung(queues, 60, sequence(0.5, 0.2))).toBe(1);
    expect(pacedRung(queues, 60, sequence(0.5, 0.7))).toBe(2);
    expect(pacedRung(queues, 60, always)).toBe(0);
  });

  it('waits on the rung drawn, its climb count starting again: a paced wait is no climb', () => {
    expect(handOff(queues, { [THROTTLED_HEADER]: 2 }, { number: 1, manual: false, givenBefore: false }, { climb: false, paced: 2 })).toEqual({
      queue: queues.throttles[2]!.queue,
      headers: { [ATTEMPT_HEADER]: 1, [THROTTLED_HEADER]: 0 },
    });
    // A climb outranks the pace.
    expect(handOff(queues, { [THROTTLED_HEADER]: 1 }, { number: 1, manual: false, givenBefore: false }, { climb: true, paced: 2 }).queue).toBe(queues.throttles[1]!.queue);
  });

  it("comes back from the first rung when its host's schedule of returns says, sooner than the rung's wait; on any other rung, after the rung's wait", () => {
    const waitingFor = { endpointId: 'endpoint-1', host: 'busy.example', unread: 0 };
    const onFirst = { ...handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { climb: false }), waitingFor };
    const asked: Array<[string, number]> = [];
    const schedule = (waitMs: number | undefined) => (host: string, longestMs: number) => (asked.push([host, longestMs]), waitMs);
    expect(spacedOnFirstRung(queues, onFirst, { climb: false, refusedAtHost: true }, schedule(350))).toEqual({ ...onFirst, waitMs: 350 });
    expect(asked).toEqual([['busy.example', queues.throttles[0]!.delay]]);
    // The schedule full, or the host's pace unknown: the rung's own wait.
    expect(spacedOnFirstRung(queues, onFirst, { climb: false, refusedAtHost: true }, schedule(queues.throttles[0]!.delay))).toEqual(onFirst);
    expect(spacedOnFirstRung(queues, onFirst, { climb: false, refusedAtHost: true }, schedule(undefined))).toEqual(onFirst);
    // Not turned away for its host's cap, climbing, or on a paced longer rung: not spaced.
    expect(spacedOnFirstRung(queues, onFirst, { climb: false, refusedAtHost: false }, schedule(350))).toEqual(onFirst);
    expect(spacedOnFirstRung(queues, onFirst, { climb: true, refusedAtHost: true }, schedule(350))).toEqual(onFirst);
    const paced = { ...handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { climb: false, paced: 1 }), waitingFor };
    expect(spacedOnFirstRung(queues, paced, { climb: false, refusedAtHost: true }, schedule(350))).toEqual(paced);
  });

  it('is sent with its spaced wait as its own time to live, and with none otherwise', () => {
    const waitingFor = { endpointId: 'endpoint-1', host: 'busy.example', unread: 0 };
    const onFirst = { ...handOff(queues, undefined, { number: 1, manual: false, givenBefore: false }, { climb: false }), waitingFor };
    const spaced = spacedOnFirstRung(queues, onFirst, { climb: false, refusedAtHost: true }, () => 350);
    expect(singleMessageOptions(spaced, 'delivery-1')).toEqual({ messageId: 'delivery-1', headers: singleMessageHeaders(spaced), expirationMs: 350 });
    expect(singleMessageOptions(onFirst, 'delivery-1')).toEqual({ messageId: 'delivery-1', headers: singleMessageHeaders(onFirst) });
  });
});

describe('an attempt waiting alone for its host', () => {
  const waiting = { queue: queues.throttles[0]!.queue, headers: { [ATTEMPT_HEADER]: 1, [THROTTLED_HEADER]: 0 } };

  it('carries its endpoint and host, and the returns it was put back unread', () => {
    const first = singleMessageHeaders({ ...waiting, waitingFor: { endpointId: 'e-1', host: 'hooks.example.com', unread: 0 } });
    expect(first).toEqual({ ...waiting.headers, [WAITING_FOR_ENDPOINT_HEADER]: 'e-1', [WAITING_FOR_HOST_HEADER]: 'hooks.example.com' });
    expect(unreadHintOf(first)).toEqual({ endpointId: 'e-1', host: 'hooks.example.com', unread: 0 });
    const again = singleMessageHeaders({ ...waiting, waitingFor: { endpointId: 'e-1', host: 'hooks.example.com', unread: 2 } });
    expect(unreadHintOf(again)).toEqual({ endpointId: 'e-1', host: 'hooks.example.com', unread: 2 });
    // Without a hint, the headers are the hand-off's alone.
    expect(singleMessageHeaders(waiting)).toEqual(waiting.headers);
  });

  it('is read again after three returns in a row unread, so a deletion, a pause or a new URL is seen', () => {
    const headers = (unread: unknown) => ({ [WAITING_FOR_ENDPOINT_HEADER]: 'e-1', [WAITING_FOR_HOST_HEADER]: 'hooks.example.com', [WAITED_UNREAD_HEADER]: unread });
    expect(unreadHintOf(headers(2))).toBeDefined();
    expect(unreadHintOf(headers(3))).toBeUndefined();
    expect(unreadHintOf(headers(1_000_000))).toBeUndefined();
    // A count that is not a whole number of returns counts as none.
    expect(unreadHintOf(headers('abc'))).toMatchObject({ unread: 0 });
  });

  it('gives no hint it cannot read plainly', () => {
    expect(unreadHintOf(undefined)).toBeUndefined();
    expect(unreadHintOf({ [WAITING_FOR_HOST_HEADER]: 'hooks.example.com' })).toBeUndefined();
    expect(unreadHintOf({ [WAITING_FOR_ENDPOINT_HEADER]: 'e-1', [WAITING_FOR_HOST_HEADER]: '' })).toBeUndefined();
    expect(unreadHintOf({ [WAITING_FOR_ENDPOINT_HEADER]: 'e-1', [WAITING_FOR_HOST_HEADER]: 'h'.repeat(301) })).toBeUndefined();
    expect(unreadHintOf({ [WAITING_FOR_ENDPOINT_HEADER]: 'e-1', [WAITING_FOR_HOST_HEADER]: Buffer.from('hooks.example.com') })).toBeUndefined();
  });
});
