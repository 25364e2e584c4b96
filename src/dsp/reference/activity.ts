// Readable float64 twin of the activity kernel: Butterworth band-pass, 20 ms / 10 ms frame levels and speech runs (acoustics.md §2.3).
import type { SpeechRunOptions } from "../channel-kernels.js";
import { applyBiquad, type Biquad } from "./loudness.js";

/** 2nd-order Butterworth high pass or low pass at `cutoffHz` (bilinear transform, Q = 1/√2). */
function butterworth2(kind: "highpass" | "lowpass", cutoffHz: number, sampleRate: number): Biquad {
  const k = Math.tan((Math.PI * cutoffHz) / sampleRate);
  const q = Math.SQRT1_2;
  const norm = 1 / (1 + k / q + k * k);
  const a1 = 2 * (k * k - 1) * norm, a2 = (1 - k / q + k * k) * norm;
  return kind === "highpass" ? [norm, -2 * norm, norm, a1, a2] : [k * k * norm, 2 * k * k * norm, k * k * norm, a1, a2];
}

/** Band-pass 100–3800 Hz (fs = 8 kHz; min(3800 Hz, 0.45·fs) below) or 80 Hz–min(7 kHz, 0.45·fs), then L_i = 10·log10(mean square + 1e−12) of frame i = 10 ms sub-blocks i and i+1. */
export function activityLevelsReference(x: ArrayLike<number>, sampleRate: number): number[] {
  const low = sampleRate <= 8000 ? 100 : 80;
  const high = sampleRate < 8000 ? Math.min(3800, 0.45 * sampleRate) : sampleRate === 8000 ? 3800 : Math.min(7000, 0.45 * sampleRate);
  const y = applyBiquad(applyBiquad(x, butterworth2("highpass", low, sampleRate)), butterworth2("lowpass", high, sampleRate));
  const boundary = (k: number) => Math.floor((k * sampleRate) / 100);
  const levels: number[] = [];
  for (let i = 0; boundary(i + 2) <= x.length; i++) {
    let sum = 0;
    for (let j = boundary(i); j < boundary(i + 2); j++) sum += y[j] * y[j];
    levels.push(10 * Math.log10(sum / (boundary(i + 2) - boundary(i)) + 1e-12));
  }
  return levels;
}

/** Noise-floor anchors are evaluated once per second and held for the frames around them. */
const NOISE_FLOOR_STEP_FRAMES = 100;

/** Percentile by linear interpolation over ascending `sorted` (acoustics.md §7.2). */
function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const r = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(r), hi = Math.ceil(r);
  return sorted[lo] + (r - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Linearly interpolated percentile of values[from, to) without sorting: quickselect (Hoare) in a
 * reusable buffer, O(n) per call.
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


/**
 * Speech runs of frame levels (dBFS), §2.3: T_on(i) = max(noise floor + enterAboveNoiseDb, P − enterBelowPeakDb)
 * with P the peak percentile of all levels and the noise floor the noise percentile of a centred
 * window of 2·halfWindow frames (shifted inside the clip) at the anchor round(i / 100); T_off = T_on −
 * stayBelowEnterDb. A run starts above T_on, its onset moving back over frames above T_off since the
 * previous run, and ends after more than hangoverFrames frames at or below T_off. Frames whose
 * nearest anchor would lie past the last one use the last anchor. Returns
 * [first frame, last frame above T_off] per run.
 */
export function speechRunsReference(levels: ArrayLike<number>, o: SpeechRunOptions): Array<[number, number]> {
  const n = levels.length;
  if (n === 0) return [];
  const peak = percentileOfSorted(Float64Array.from(levels).sort(), o.peakPercentile);
  const halfWindow = o.noiseHalfWindowFrames;
  const anchors = Math.floor((n - 1) / NOISE_FLOOR_STEP_FRAMES) + 1;
  const noiseFloor = new Float64Array(anchors);
  const buffer = new Float64Array(Math.min(n, 2 * halfWindow));
  for (let a = 0; a < anchors; a++) {
    const centre = a * NOISE_FLOOR_STEP_FRAMES;
    let from = Math.max(0, centre - halfWindow);
    const to = Math.min(n, from + 2 * halfWindow);
    from = Math.max(0, to - 2 * halfWindow);
    noiseFloor[a] = selectPercentile(levels, from, to, o.noisePercentile, buffer);
  }
  // The last frames of some lengths round to an anchor past the last one: they keep the last anchor's floor.
  const enterAt = (i: number) => Math.max(noiseFloor[Math.min(Math.round(i / NOISE_FLOOR_STEP_FRAMES), anchors - 1)] + o.enterAboveNoiseDb, peak - o.enterBelowPeakDb);
  const runs: Array<[number, number]> = [];
  let inSpeech = false, start = 0, lastActive = 0, previousEnd = 0;
  for (let i = 0; i < n; i++) {
    const enter = enterAt(i);
    const stay = enter - o.stayBelowEnterDb;
    if (!inSpeech) {
      if (levels[i] > enter) {
        start = i;
        while (start > previousEnd && levels[start - 1] > enterAt(start - 1) - o.stayBelowEnterDb) start--;
        inSpeech = true;
        lastActive = i;
      }
    } else if (levels[i] > stay) {
      lastActive = i;
    } else if (i - lastActive > o.hangoverFrames) {
      runs.push([start, lastActive]);
      inSpeech = false;
      previousEnd = lastActive + 1;
    }
  }
  if (inSpeech) runs.push([start, lastActive]);
  return runs;
}
