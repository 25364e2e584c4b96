// The one percentile of the engine: linear interpolation between closest ranks (acoustics.md §7.2), for pauses, pitch, bandwidth, latencies and summaries.

/** The `p`-th percentile (0–100) of ascending `sorted`, interpolated linearly between ranks; null when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const r = ((n - 1) * p) / 100;
  const lo = Math.floor(r), hi = Math.ceil(r);
  return sorted[lo] + (r - lo) * (sorted[hi] - sorted[lo]);
}
