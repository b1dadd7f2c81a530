/** Endpoints whose count is kept per process; past this many, the oldest is forgotten. */
const ENDPOINTS_KEPT = 10_000;

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
      // Most recent last, so the oldest goes first past ENDPOINTS_KEPT.
      this.windows.delete(endpointId);
      this.windows.set(endpointId, window);
      if (this.windows.size > ENDPOINTS_KEPT) this.windows.delete(this.windows.keys().next().value!);
    }
    window.count += 1;
    return window.count;
  }
}
