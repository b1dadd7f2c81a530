/** Endpoints whose recent count is kept per process; past this many, the oldest is forgotten. */
const ENDPOINTS_KEPT = 10_000;

const WINDOW_MS = 1000;

/**
 * How many of an endpoint's attempts found no slot in this worker in about the last second (the
 * larger of the second now running and the one before it). With one wait of a second, that is
 * the size of the endpoint's backlog going round here: far more than the endpoint's few slots
 * take, and its messages may as well wait longer.
 */
export class ThrottleRates {
  private readonly windows = new Map<string, { startedAt: number; count: number; previous: number }>();

  /** Counts one more for this endpoint, and returns its count over about the last second. */
  note(endpointId: string, now = Date.now()): number {
    let window = this.windows.get(endpointId);
    if (window === undefined || now - window.startedAt >= WINDOW_MS) {
      const previous = window !== undefined && now - window.startedAt < 2 * WINDOW_MS ? window.count : 0;
      window = { startedAt: now, count: 0, previous };
      // Most recent last, so the oldest goes first past ENDPOINTS_KEPT.
      this.windows.delete(endpointId);
      this.windows.set(endpointId, window);
      if (this.windows.size > ENDPOINTS_KEPT) this.windows.delete(this.windows.keys().next().value!);
    }
    window.count += 1;
    return Math.max(window.count, window.previous);
  }
}
