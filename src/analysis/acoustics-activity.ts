// Speech activity with hysteresis, hangover and an adaptive noise floor, and pause statistics (acoustics.md §2.3–2.4).
//
// Frame levels come from the activity kernel (20 ms windows, 10 ms hop, band-passed). Engine
// choice: the hangover keeps the speech state through short dips, but a segment ends where the
// level last exceeded T_off, not 200 ms later, so pause durations measure the actual silence.

/** Frame hop and window of the activity kernel (s). */
export const ACTIVITY_HOP_S = 0.01;
export const ACTIVITY_WINDOW_S = 0.02;
/** Noise-floor anchors are evaluated once per second and held for the frames around them. */
const NOISE_FLOOR_STEP_FRAMES = 100;

export interface ActivityParameters {
  peakPercentile: number;
  noisePercentile: number;
  noiseWindowS: number;
  enterAboveNoiseDb: number;
  enterBelowPeakDb: number;
  stayBelowEnterDb: number;
  hangoverS: number;
  minGapS: number;
  minSpeechS: number;
}

export type Segment = [number, number];

/** Percentile by linear interpolation over ascending `sorted` (acoustics.md §7.2); null when empty. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const r = ((n - 1) * p) / 100;
  const lo = Math.floor(r), hi = Math.ceil(r);
  return sorted[lo] + (r - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Linearly interpolated percentile of values[from, to) without sorting: quickselect (Hoare) in a
 * reusable buffer, O(n) per call. The noise floor asks this once per second of audio.
 */
export function selectPercentile(values: ArrayLike<number>, from: number, to: number, p: number, buffer: Float64Array): number {
  const n = to - from;
  for (let i = 0; i < n; i++) buffer[i] = values[from + i];
  const r = ((n - 1) * p) / 100;
  const k = Math.floor(r);
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = buffer[(lo + hi) >> 1];
    let i = lo, j = hi;
    while (i <= j) {
      while (buffer[i] < pivot) i++;
      while (buffer[j] > pivot) j--;
      if (i <= j) { const t = buffer[i]; buffer[i] = buffer[j]; buffer[j] = t; i++; j--; }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  const low = buffer[k];
  if (r === k) return low;
  // The next order statistic is the smallest value above position k.
  let high = Infinity;
  for (let i = k + 1; i < n; i++) if (buffer[i] < high) high = buffer[i];
  return low + (r - k) * (high - low);
}

/** Speech segments [start_s, end_s] from frame levels (dBFS), §2.3. */
export function detectSpeechSegments(levels: Float32Array, params: ActivityParameters): Segment[] {
  const n = levels.length;
  if (n === 0) return [];
  const peak = percentileSorted(levels.slice().sort(), params.peakPercentile)!;
  const halfWindow = Math.round(params.noiseWindowS / ACTIVITY_HOP_S / 2);
  const anchors = Math.floor((n - 1) / NOISE_FLOOR_STEP_FRAMES) + 1;
  const noiseFloor = new Float64Array(anchors);
  const buffer = new Float64Array(Math.min(n, 2 * halfWindow));
  for (let a = 0; a < anchors; a++) {
    const centre = a * NOISE_FLOOR_STEP_FRAMES;
    // A centred window of noiseWindowS, shifted inside the clip (the whole clip when shorter).
    let from = Math.max(0, centre - halfWindow);
    const to = Math.min(n, from + 2 * halfWindow);
    from = Math.max(0, to - 2 * halfWindow);
    noiseFloor[a] = selectPercentile(levels, from, to, params.noisePercentile, buffer);
  }
  const hangoverFrames = Math.round(params.hangoverS / ACTIVITY_HOP_S);
  const enterAt = (i: number) => Math.max(noiseFloor[Math.round(i / NOISE_FLOOR_STEP_FRAMES)] + params.enterAboveNoiseDb, peak - params.enterBelowPeakDb);
  const raw: Segment[] = [];
  let inSpeech = false, start = 0, lastActive = 0, previousEnd = 0;
  for (let i = 0; i < n; i++) {
    const enter = enterAt(i);
    const stay = enter - params.stayBelowEnterDb;
    if (!inSpeech) {
      if (levels[i] > enter) {
        // Hysteresis both ways: the onset moves back over frames still above T_off (where ends are
        // placed too), so a weak initial consonant does not start the segment late.
        start = i;
        while (start > previousEnd && levels[start - 1] > enterAt(start - 1) - params.stayBelowEnterDb) start--;
        inSpeech = true;
        lastActive = i;
      }
    } else if (levels[i] > stay) {
      lastActive = i;
    } else if (i - lastActive > hangoverFrames) {
      raw.push([start * ACTIVITY_HOP_S, lastActive * ACTIVITY_HOP_S + ACTIVITY_WINDOW_S]);
      inSpeech = false;
      previousEnd = lastActive + 1;
    }
  }
  if (inSpeech) raw.push([start * ACTIVITY_HOP_S, lastActive * ACTIVITY_HOP_S + ACTIVITY_WINDOW_S]);
  return dropShortSegments(mergeSegments(raw, params.minGapS), params.minSpeechS);
}

/** Merge segments separated by gaps shorter than `minGapS` (returns new segments). */
export function mergeSegments(segments: Segment[], minGapS: number): Segment[] {
  const out: Segment[] = [];
  for (const [s, e] of segments) {
    const last = out[out.length - 1];
    if (last && s - last[1] < minGapS) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Drop segments shorter than `minSpeechS`. */
export function dropShortSegments(segments: Segment[], minSpeechS: number): Segment[] {
  return segments.filter(([s, e]) => e - s >= minSpeechS);
}

/** The `pauses` block of interfaces.md (§2.4). */
export interface PauseStats {
  count: number;
  total_s: number;
  mean_s: number | null;
  p50_s: number | null;
  p95_s: number | null;
  longest_s: number | null;
  per_minute: number | null;
}

/** Pauses = gaps ≥ minPauseS between consecutive speech segments (none before the first or after the last). */
export function computePauseStats(segments: Segment[], durationS: number, minPauseS: number): PauseStats {
  const pauses: number[] = [];
  for (let i = 1; i < segments.length; i++) {
    const gap = segments[i][0] - segments[i - 1][1];
    if (gap >= minPauseS) pauses.push(gap);
  }
  pauses.sort((a, b) => a - b);
  const total = pauses.reduce((s, p) => s + p, 0);
  return {
    count: pauses.length,
    total_s: total,
    mean_s: pauses.length ? total / pauses.length : null,
    p50_s: percentileSorted(pauses, 50),
    p95_s: percentileSorted(pauses, 95),
    longest_s: pauses.length ? pauses[pauses.length - 1] : null,
    per_minute: durationS > 0 ? pauses.length / (durationS / 60) : null,
  };
}

/** Σ segment durations (s). */
export function totalDuration(segments: Segment[]): number {
  return segments.reduce((s, [a, b]) => s + (b - a), 0);
}

/** Whether time `t` (s) lies inside a segment (segments sorted, binary search). */
export function insideSegments(segments: Segment[], t: number): boolean {
  let lo = 0, hi = segments.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t < segments[mid][0]) hi = mid - 1;
    else if (t > segments[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}
