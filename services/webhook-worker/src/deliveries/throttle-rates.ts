import { noteMostRecent } from './recent-notes.js';

const WINDOW_MS = 1000;

/**
 * How many of an endpoint's attempts have found no slot in this worker in the second now running.
 * With one wait of a second, that is the size of the endpoint's backlog going round here. The
 * count starts again each second, so the first ones each second keep the short wait: they keep
 * the endpoint's slots busy while the rest of a large backlog waits longer.
 */
export class ThrottleRates {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  /** Counts one more for this endpoint, and returns its count in the second now running. */
  note(endpointId: string, now = performance.now()): number {
    let window = this.windows.get(endpointId);
    if (window === undefined || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, count: 0 };
      noteMostRecent(this.windows, endpointId, window);
    }
    window.count += 1;
    return window.count;
  }
}
