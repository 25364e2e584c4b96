// Speaking rate from audio: syllable nuclei after de Jong & Wempe (2009) as specified in acoustics.md §3.2.
//
// Intensity peaks that stand ≥ minDipDb above the dips on both sides (v3 dip-peak-dip), above the
// 99th-percentile-minus-25 dB threshold, voiced by YIN and inside a sounding interval are nuclei.
import type { ChannelKernels } from "../dsp/channel-kernels.js";
import { mergeSegments, insideSegments, totalDuration, type Segment } from "./acoustics-activity.js";
import type { AcousticsOptions } from "./acoustics-options.js";
import { pitchCutoffHz, pitchDecimation } from "./acoustics-pitch.js";
import { F32List, F64List, selectInPlaceF32 } from "../dsp/channel-stream.js";

/** Praat's intensity window is 3.2 / pitch floor and its time step 0.8 / pitch floor. */
const WINDOW_PERIODS = 3.2;
const STEP_PERIODS = 0.8;
/** Kaiser shape giving Praat's Gaussian-like intensity window. */
const KAISER_BETA = 20;
/** Peaks per block of ContourPeaks' lists. */
const PEAK_BLOCK = 1 << 13;
/** Voicing frame length centred on a peak (s). */
const VOICING_WINDOW_S = 0.04;

/** Peaks that rise ≥ `minDipDb` above the preceding dip and fall ≥ `minDipDb` before the next one. */
export function findDipPeakDip(values: ArrayLike<number>, minDipDb: number): number[] {
  const peaks: number[] = [];
  let lookingForPeak = false;
  let low = Infinity, high = -Infinity, highAt = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (lookingForPeak) {
      if (v > high) { high = v; highAt = i; }
      if (v < high - minDipDb) { peaks.push(highAt); lookingForPeak = false; low = v; }
    } else {
      if (v < low) low = v;
      if (v > low + minDipDb) { lookingForPeak = true; high = v; highAt = i; }
    }
  }
  return peaks;
}

/** Parabolic refinement of a peak index (fractional frames). */
function refinePeak(values: ArrayLike<number>, i: number): number {
  if (i <= 0 || i >= values.length - 1) return i;
  const a = values[i - 1], b = values[i], c = values[i + 1];
  const curvature = a - 2 * b + c;
  return curvature < 0 ? i + (0.5 * (a - c)) / curvature : i;
}

export interface SyllableResult {
  nuclei: number;
  /** Σ sounding intervals (s): VAD speech merged across gaps shorter than minPauseS. */
  phonationTimeS: number;
}

/** The intensity contour's window and step (samples) at `sampleRate`, and the Kaiser shape (§3.2). */
export function syllableIntensityShape(o: AcousticsOptions, sampleRate: number): { windowLength: number; step: number; beta: number } {
  return {
    windowLength: Math.round((WINDOW_PERIODS / o.syllableIntensityFloorHz) * sampleRate),
    step: Math.round((STEP_PERIODS / o.syllableIntensityFloorHz) * sampleRate),
    beta: KAISER_BETA,
  };
}

/** The YIN frames that check the voicing of syllable candidates: on the signal decimated by `factor` after a low pass at `cutoffHz`. */
export interface SyllableVoicingPlan {
  cutoffHz: number;
  factor: number;
  window: number;
  tauMin: number;
  tauMax: number;
  threshold: number;
  /** Frame starts in decimated samples, one per candidate. */
  starts: Int32Array;
}

/** Syllable candidates found in the intensity contour, and the voicing frames still to measure (null: none). */
export interface SyllablePlan {
  phonationTimeS: number;
  voicing: SyllableVoicingPlan | null;
}

/**
 * Candidates from the intensity contour of a channel of `sampleRate` Hz and its VAD segments
 * `speech` (the contour is only read).
 */
export function planSyllables(intensity: Float32Array, speech: Segment[], o: AcousticsOptions, sampleRate: number): SyllablePlan {
  const peaks = new ContourPeaks(o.syllableMinDipDb, intensity.length);
  peaks.pushAll(intensity);
  return planSyllablesFromPeaks(peaks, speech, o, sampleRate);
}

/**
 * What the syllable plan needs of an intensity contour, gathered value by value so the contour
 * need not be held: the dip-peak-dip peaks (findDipPeakDip) with their levels and parabolically
 * refined positions, the minimum, and the largest values down to the 99th percentile's lower rank
 * (a min-heap of about 1 % of the values) — which needs the contour's length in advance
 * (`expectedCount`); with 0 every value is kept.
 */
export class ContourPeaks {
  count = 0;
  private min = Infinity;
  // The peaks' levels (contour values: f32 exactly) and refined positions (f64), in blocks: no doubling array and its copies left to the collector (the 4-hour stereo bench file's mix-down has more than 58,000: one per syllable nucleus at least).
  private readonly peakLevels: F32List;
  private readonly peakPositions: F64List;
  // Dip-peak-dip state, as in findDipPeakDip, plus the neighbours of the current high for the refinement.
  private lookingForPeak = false;
  private low = Infinity;
  private high = -Infinity;
  private highAt = -1;
  private beforeHigh = NaN;
  private afterHigh = NaN;
  private previous = NaN;
  // The top values: a min-heap of `capacity` values (capacity 0: every value, in `all`).
  private readonly heap: Float32Array;
  private heapSize = 0;
  private readonly all: F32List | null;

  /** `spent`, a finished ContourPeaks (of the previous signal), gives this one its storage: its peaks are dropped. */
  constructor(private readonly minDipDb: number, private readonly expectedCount: number, spent?: ContourPeaks) {
    const capacity = expectedCount > 0 ? expectedCount - Math.floor(((expectedCount - 1) * 99) / 100) : 0;
    this.heap = spent && spent.heap.length === capacity ? spent.heap : new Float32Array(capacity);
    this.all = capacity > 0 ? null : new F32List();
    this.peakLevels = spent ? spent.peakLevels : new F32List(0, undefined, PEAK_BLOCK);
    this.peakPositions = spent ? spent.peakPositions : new F64List(PEAK_BLOCK);
    this.peakLevels.reset();
    this.peakPositions.reset();
  }

  pushAll(values: Float32Array): void {
    this.pushRange(values, 0, values.length);
  }

  /** Add values[from, from + count). */
  pushRange(values: Float32Array, from: number, count: number): void {
    const minDip = this.minDipDb;
    for (let j = from; j < from + count; j++) {
      const v = values[j];
      const i = this.count++;
      if (v < this.min) this.min = v;
      if (i === this.highAt + 1) this.afterHigh = v;
      if (this.lookingForPeak) {
        if (v > this.high) { this.high = v; this.highAt = i; this.beforeHigh = this.previous; }
        if (v < this.high - minDip) { this.addPeak(); this.lookingForPeak = false; this.low = v; }
      } else {
        if (v < this.low) this.low = v;
        if (v > this.low + minDip) { this.lookingForPeak = true; this.high = v; this.highAt = i; this.beforeHigh = this.previous; }
      }
      this.previous = v;
      this.keepTop(v);
    }
    if (this.all) this.all.pushRange(values, from, count);
  }

  /** The confirmed peak at highAt (never the first or last value: a value before rose to it, one after fell from it), refined as refinePeak does. */
  private addPeak(): void {
    const a = this.beforeHigh, b = this.high, c = this.afterHigh, i = this.highAt;
    const curvature = a - 2 * b + c;
    this.peakLevels.push(b);
    this.peakPositions.push(curvature < 0 ? i + (0.5 * (a - c)) / curvature : i);
  }

  private keepTop(v: number): void {
    const heap = this.heap;
    if (heap.length === 0) return;
    if (this.heapSize < heap.length) {
      let at = this.heapSize++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!(heap[parent] > v)) break;
        heap[at] = heap[parent];
        at = parent;
      }
      heap[at] = v;
    } else if (v > heap[0]) {
      const n = heap.length;
      let at = 0;
      for (;;) {
        const l = 2 * at + 1;
        if (l >= n) break;
        const child = l + 1 < n && heap[l + 1] < heap[l] ? l + 1 : l;
        if (!(heap[child] < v)) break;
        heap[at] = heap[child];
        at = child;
      }
      heap[at] = v;
    }
  }

  /** The peaks (levels and refined fractional positions, in order), as arrays. */
  peaks(): { levels: number[]; positions: number[] } {
    const levels: number[] = [], positions: number[] = [];
    this.forEachPeak((level, position) => { levels.push(level); positions.push(position); });
    return { levels, positions };
  }

  /** Each peak's level and refined fractional position, in order (nothing copied). */
  forEachPeak(use: (level: number, position: number) => void): void {
    // Both lists hold one value per peak in blocks of the same size: their parts pair up.
    const levels = this.peakLevels.parts(), positions = this.peakPositions.parts();
    for (let b = 0; b < levels.length; b++) {
      const l = levels[b], q = positions[b];
      for (let i = 0; i < l.length; i++) use(l[i], q[i]);
    }
  }

  /** max(P99 − `belowPeakDb`, minimum) of the values, P99 as percentile() gives it on an ascending copy (the same order statistics and arithmetic). */
  threshold(belowPeakDb: number): number {
    const n = this.count;
    const r = ((n - 1) * 99) / 100;
    const lo = Math.floor(r), hi = Math.ceil(r);
    let low: number, high: number;
    if (this.all) {
      const values = this.all.toArray();
      low = selectInPlaceF32(values, lo);
      high = low;
      if (hi > lo) {
        high = Infinity;
        for (let i = lo + 1; i < n; i++) if (values[i] < high) high = values[i];
      }
    } else {
      if (n !== this.expectedCount) throw new RangeError(`the intensity contour holds ${n} values, ${this.expectedCount} were expected`);
      // The heap holds ranks lo … n − 1: its two smallest are ranks lo and lo + 1.
      const top = this.heap.slice(0, this.heapSize).sort();
      low = top[0];
      high = hi > lo ? top[1] : low;
    }
    return Math.max(low + (r - lo) * (high - low) - belowPeakDb, this.min);
  }
}

/** The syllable plan from the peaks of a channel's whole intensity contour (ContourPeaks fed every value). */
export function planSyllablesFromPeaks(contour: ContourPeaks, speech: Segment[], o: AcousticsOptions, sampleRate: number): SyllablePlan {
  const sounding = mergeSegments(speech, o.syllableMinPauseS);
  const phonationTimeS = totalDuration(sounding);
  const fs = sampleRate;
  const { windowLength, step } = syllableIntensityShape(o, fs);
  const none: SyllablePlan = { phonationTimeS, voicing: null };
  if (contour.count < 3 || sounding.length === 0) return none;
  const frameTime = (f: number) => (f * step + windowLength / 2) / fs;
  const threshold = contour.threshold(o.syllableThresholdBelowPeakDb);
  // The candidates (peaks above the threshold inside sounding intervals) walked twice, counted then placed, rather than held.
  const eachCandidate = (use: (t: number) => void) => contour.forEachPeak((level, position) => {
    if (!(level > threshold)) return;
    const t = frameTime(position);
    if (insideSegments(sounding, t)) use(t);
  });
  let count = 0;
  eachCandidate(() => count++);
  if (!count) return none;
  // Voicing: YIN over a 40 ms frame centred on each peak, floor/ceiling as Praat's To Pitch (ac).
  const factor = pitchDecimation(fs);
  const rate = fs / factor;
  const window = Math.round(VOICING_WINDOW_S * rate);
  const tauMin = Math.max(2, Math.floor(rate / o.syllableVoicingCeilingHz));
  const tauMax = Math.ceil(rate / o.syllableVoicingFloorHz);
  const starts = new Int32Array(count);
  let i = 0;
  eachCandidate((t) => { starts[i++] = Math.round(t * rate - (window + tauMax) / 2); });
  return { phonationTimeS, voicing: { cutoffHz: pitchCutoffHz(o.syllableVoicingCeilingHz, fs), factor, window, tauMin, tauMax, threshold: o.syllableVoicingThreshold, starts } };
}

/** The nuclei of a plan: `voiced` of its candidates (those whose voicing frame's aperiodicity is at most the threshold; see voicedCount). */
export function finishSyllables(plan: SyllablePlan, voiced: number): SyllableResult {
  return { nuclei: plan.voicing ? voiced : 0, phonationTimeS: plan.phonationTimeS };
}

/** How many of `aperiodicity` are at most `threshold` (voiced syllable candidates). */
export function voicedCount(aperiodicity: Float32Array, threshold: number): number {
  let voiced = 0;
  for (let i = 0; i < aperiodicity.length; i++) if (aperiodicity[i] <= threshold) voiced++;
  return voiced;
}

/** Count syllable nuclei of one channel from the syllable options; `speech` are the VAD segments of the same channel. */
export function countSyllableNuclei(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): SyllableResult {
  const { windowLength, step, beta } = syllableIntensityShape(o, ch.sampleRate);
  const plan = planSyllables(ch.intensity(windowLength, step, beta), speech, o, ch.sampleRate);
  const v = plan.voicing;
  if (!v) return finishSyllables(plan, 0);
  ch.decimateForPitch(v.cutoffHz, v.factor);
  return finishSyllables(plan, voicedCount(ch.yin(v.starts, v.window, v.tauMin, v.tauMax, v.threshold).aperiodicity, v.threshold));
}
