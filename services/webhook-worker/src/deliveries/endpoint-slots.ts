import { noteMostRecent } from './recent-notes.js';

/**
 * Attempts one struggling endpoint may take at once in one worker (at most its usual share): enough
 * to notice that it has recovered, few enough that several failing endpoints cannot fill the worker.
 */
const STRUGGLING_PER_ENDPOINT = 2;

export interface EndpointSlotsOptions {
  /** Attempts the worker makes at once: struggling endpoints together take at most half. */
  concurrency: number;
  /** Attempts one healthy endpoint may take at once in this worker. */
  perEndpoint: number;
  /** An attempt that fails or takes longer than this marks its endpoint as struggling. */
  struggleAfterMs: number;
  /** How long an attempt may expect to wait for a slot of its healthy endpoint before it goes elsewhere. */
  shortWaitMs: number;
}

/**
 * The slots of each endpoint in this worker: its attempts in flight, the attempts waiting in its
 * line, and whether it is struggling (its latest attempt failed or was slow). A slow endpoint
 * thus never takes the slots other endpoints need. Only endpoints with attempts in flight or
 * waiting are kept, and the latest noted (`recent-notes.ts`).
 */
export class EndpointSlots {
  private readonly busy = new Map<string, number>();
  /** Struggling endpoints: slow (the latest attempt succeeded, slowly) or failing (it failed). */
  private readonly struggling = new Map<string, 'slow' | 'failing'>();
  /** A healthy endpoint's typical attempt duration here, in ms (see markHealthy). */
  private readonly typicalMs = new Map<string, number>();
  /** Attempts waiting for a slot of their (healthy) endpoint, first come first served. */
  private readonly lines = new Map<string, Array<(granted: boolean) => void>>();
  private waitingInLines = 0;
  /** Attempts in flight for endpoints that were struggling when the attempt began. */
  private strugglingBusy = 0;
  /** Most attempts struggling endpoints take together: half the worker, the rest kept for healthy ones. */
  private readonly strugglingShare: number;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly struggleAfterMs: number;
  private readonly shortWaitMs: number;
  private stopping = false;

  constructor({ concurrency, perEndpoint, struggleAfterMs, shortWaitMs }: EndpointSlotsOptions) {
    this.concurrency = concurrency;
    this.strugglingShare = Math.max(1, Math.floor(concurrency / 2));
    this.perEndpoint = perEndpoint;
    this.struggleAfterMs = struggleAfterMs;
    this.shortWaitMs = shortWaitMs;
  }

  /**
   * Whether an attempt for this endpoint may start now (counted at once, before any await, so the
   * next caller's answer agrees), wait here for one of its endpoint's slots, or go elsewhere.
   *
   * A healthy endpoint has `perEndpointConcurrency` slots, and an attempt waits for one when the
   * endpoint's recent answers say the wait will be short: a burst to a fast receiver is sent
   * from here, at its pace, rather than sent round the throttle queue a second at a time. A
   * struggling endpoint (its latest attempt failed or was slow) gets fewer slots, never a wait,
   * and struggling endpoints together at most half the worker, so that however many customers'
   * endpoints fail or stall, healthy ones keep theirs.
   */
  admit(endpointId: string, fromEvent: boolean): 'now' | 'wait' | 'elsewhere' {
    if (this.stopping) return 'elsewhere';
    const busy = this.busy.get(endpointId) ?? 0;
    if (this.struggling.has(endpointId)) {
      if (fromEvent || busy >= Math.min(this.perEndpoint, STRUGGLING_PER_ENDPOINT) || this.strugglingBusy >= this.strugglingShare) return 'elsewhere';
      this.busy.set(endpointId, busy + 1);
      this.strugglingBusy += 1;
      return 'now';
    }
    if (busy < this.perEndpoint) {
      this.busy.set(endpointId, busy + 1);
      return 'now';
    }
    const waiting = this.lines.get(endpointId)?.length ?? 0;
    // Unknown (nothing answered here yet): one round of waiting, no more.
    const typicalMs = this.typicalMs.get(endpointId) ?? this.shortWaitMs;
    const expectedWaitMs = Math.ceil((waiting + 1) / this.perEndpoint) * typicalMs;
    return waiting < this.concurrency && expectedWaitMs <= this.shortWaitMs ? 'wait' : 'elsewhere';
  }

  /** For shutdown: nothing more is admitted, and every attempt waiting in a line goes elsewhere. */
  stop(): void {
    this.stopping = true;
    for (const endpointId of [...this.lines.keys()]) this.turnAwayLine(endpointId);
  }

  /** Whether stop() was called: an attempt turned away now is not for want of a slot. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Resolves true once a slot of this endpoint is handed over, false if it starts struggling first. */
  waitForSlot(endpointId: string): Promise<boolean> {
    return new Promise((resolve) => {
      const line = this.lines.get(endpointId);
      if (line) line.push(resolve);
      else this.lines.set(endpointId, [resolve]);
      this.waitingInLines += 1;
    });
  }

  /** A finished attempt's slot: handed to the next in its endpoint's line, if any, else freed. */
  release(endpointId: string, countedStruggling: boolean): void {
    if (countedStruggling) this.strugglingBusy -= 1;
    const line = this.lines.get(endpointId);
    if (line && !this.struggling.has(endpointId)) {
      const next = line.shift()!;
      if (line.length === 0) this.lines.delete(endpointId);
      this.waitingInLines -= 1;
      next(true);
      return;
    }
    const left = (this.busy.get(endpointId) ?? 1) - 1;
    // Only endpoints with attempts in flight are kept: a worker runs for days over many endpoints.
    if (left > 0) this.busy.set(endpointId, left);
    else this.busy.delete(endpointId);
  }

  /**
   * Whether this endpoint's latest attempt here failed (another status, a connection error, a
   * timeout): an attempt for it that finds no slot may as well wait longer, since the one it
   * would make now would most likely fail and wait for its retry minutes.
   */
  isFailing(endpointId: string): boolean {
    return this.struggling.get(endpointId) === 'failing';
  }

  /** Whether this endpoint's latest attempt here failed or took longer than `struggleAfterMs`. */
  isStruggling(endpointId: string): boolean {
    return this.struggling.has(endpointId);
  }

  /** Attempts waiting for a slot of their endpoint. */
  get waiting(): number {
    return this.waitingInLines;
  }

  /**
   * Notes how an attempt went: a quick good answer keeps its endpoint healthy; a slow one, or a
   * failure, marks it struggling.
   */
  noteAnswer(endpointId: string, durationMs: number, delivered: boolean): void {
    if (delivered && durationMs <= this.struggleAfterMs) this.markHealthy(endpointId, durationMs);
    else this.markStruggling(endpointId, delivered ? 'slow' : 'failing');
  }

  /**
   * Notes an endpoint as struggling, most recent last (see noteMostRecent). Attempts waiting for
   * its slots go elsewhere now, rather than wait on a slow receiver.
   */
  markStruggling(endpointId: string, how: 'slow' | 'failing'): void {
    this.typicalMs.delete(endpointId);
    noteMostRecent(this.struggling, endpointId, how);
    this.turnAwayLine(endpointId);
  }

  /** The attempts waiting for this endpoint's slots go elsewhere. */
  private turnAwayLine(endpointId: string): void {
    const line = this.lines.get(endpointId);
    if (!line) return;
    this.lines.delete(endpointId);
    this.waitingInLines -= line.length;
    for (const waiter of line) waiter(false);
  }

  /**
   * Notes a good answer: the endpoint is healthy, and its typical answer time moves a fifth of the
   * way towards this one (one slow answer among fast ones does not send a burst round the
   * throttle queue; an endpoint that turns slow for good is struggling from its first answer
   * past `struggleAfterMs`, which ends the waits).
   */
  private markHealthy(endpointId: string, durationMs: number): void {
    this.struggling.delete(endpointId);
    const typical = this.typicalMs.get(endpointId);
    noteMostRecent(this.typicalMs, endpointId, typical === undefined ? durationMs : 0.8 * typical + 0.2 * durationMs);
  }
}
