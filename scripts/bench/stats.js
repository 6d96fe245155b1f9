// Small statistics of the report: medians of rounds, percentiles of latencies.

/** The median of the numbers that are not null; null when there are none. */
export function median(values) {
  const known = values.filter((value) => value !== null && value !== undefined).sort((a, b) => a - b);
  if (known.length === 0) return null;
  const middle = Math.floor(known.length / 2);
  return known.length % 2 === 1 ? known[middle] : (known[middle - 1] + known[middle]) / 2;
}

/** The p-th percentile (nearest rank) of `values`; null when empty. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
