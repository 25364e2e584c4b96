// Speech activity with hysteresis, hangover and an adaptive noise floor, and pause statistics (acoustics.md §2.3–2.4).
//
// Frame levels and the per-frame decisions run in the activity kernel (20 ms windows, 10 ms hop,
// band-passed; twin in src/dsp/reference/activity.ts); this module turns its runs into segments.
// Engine choice: the hangover keeps the speech state through short dips, but a segment ends where
// the level last exceeded T_off, not 200 ms later, so pause durations measure the actual silence.
import type { ChannelKernels, SpeechRunOptions } from "../dsp/channel-kernels.js";
import type { AcousticsOptions } from "./acoustics-options.js";
import { percentile } from "./percentile.js";

/** Frame hop and window of the activity kernel (s). */
const ACTIVITY_HOP_S = 0.01;
const ACTIVITY_WINDOW_S = 0.02;

/** The speech-activity options (in seconds and dB); the kernel takes them as SpeechRunOptions (in frames). */
export type VadOptions = Pick<AcousticsOptions,
  "vadPeakPercentile" | "vadNoisePercentile" | "vadNoiseWindowS" | "vadEnterAboveNoiseDb" | "vadEnterBelowPeakDb" |
  "vadStayBelowEnterDb" | "vadHangoverS" | "vadMinGapS" | "vadMinSpeechS">;

export type Segment = [number, number];

/** The speech-run decision parameters of the activity kernel (frames at a 10 ms hop). */
export function speechRunOptions(o: VadOptions): SpeechRunOptions {
  return {
    peakPercentile: o.vadPeakPercentile,
    noisePercentile: o.vadNoisePercentile,
    noiseHalfWindowFrames: Math.round(o.vadNoiseWindowS / ACTIVITY_HOP_S / 2),
    enterAboveNoiseDb: o.vadEnterAboveNoiseDb,
    enterBelowPeakDb: o.vadEnterBelowPeakDb,
    stayBelowEnterDb: o.vadStayBelowEnterDb,
    hangoverFrames: Math.round(o.vadHangoverS / ACTIVITY_HOP_S),
  };
}

/**
 * Speech segments [start_s, end_s] from the kernel's runs (first frame, last frame above T_off):
 * a run ends where the level last exceeded T_off, plus one window; then merged and filtered, §2.3.
 */
export function segmentsFromRuns(runs: Int32Array, o: VadOptions): Segment[] {
  // Merged as they are made (no list of the unmerged segments).
  const merged: Segment[] = [];
  for (let r = 0; r + 1 < runs.length; r += 2) mergeInto(merged, runs[r] * ACTIVITY_HOP_S, runs[r + 1] * ACTIVITY_HOP_S + ACTIVITY_WINDOW_S, o.vadMinGapS);
  return dropShortSegments(merged, o.vadMinSpeechS);
}

/** Speech segments [start_s, end_s] of a channel in the kernels, §2.3. */
export function detectSpeechSegments(kernels: ChannelKernels, o: VadOptions): Segment[] {
  return segmentsFromRuns(kernels.speechRuns(speechRunOptions(o)), o);
}

/** Merge segments separated by gaps shorter than `minGapS` (returns new segments). */
export function mergeSegments(segments: Segment[], minGapS: number): Segment[] {
  const out: Segment[] = [];
  for (const [s, e] of segments) mergeInto(out, s, e, minGapS);
  return out;
}

/** Append [s, e] to `out` (ordered by start), or extend its last segment when the gap is under `minGapS`. */
function mergeInto(out: Segment[], s: number, e: number, minGapS: number): void {
  const last = out[out.length - 1];
  if (last && s - last[1] < minGapS) last[1] = Math.max(last[1], e);
  else out.push([s, e]);
}

/** Drop segments shorter than `minSpeechS`. */
function dropShortSegments(segments: Segment[], minSpeechS: number): Segment[] {
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
    p50_s: percentile(pauses, 50),
    p95_s: percentile(pauses, 95),
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
