// The one percentile every benchmark reports: the value at or below which p% of sorted values lie.
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
