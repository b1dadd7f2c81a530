/**
 * Endpoints a worker keeps a note about (struggling, typical answer time, throttled this second);
 * past this many, the oldest note goes: a worker runs for days over endpoints it may never see
 * again.
 */
export const ENDPOINTS_KEPT = 10_000;

/** Sets `key`'s note as the most recent (a Map keeps insertion order), dropping the oldest past ENDPOINTS_KEPT. */
export function noteMostRecent<K, V>(notes: Map<K, V>, key: K, value: V): void {
  notes.delete(key);
  notes.set(key, value);
  if (notes.size > ENDPOINTS_KEPT) notes.delete(notes.keys().next().value!);
}
