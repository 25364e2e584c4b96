// YIN pitch on a decimated copy of the signal: the F0 track over speech frames and its statistics (acoustics.md §6.1); the syllable voicing check uses the same decimation.
import type { ChannelKernels } from "../dsp/channel-kernels.js";
import { insideSegments, type Segment } from "./acoustics-activity.js";
import type { AcousticsOptions } from "./acoustics-options.js";

const MIN_VOICED_FRAMES = 3;

/** YIN runs at ≈ 4 kHz: F0 stays below 450 Hz, and the difference function costs ∝ rate². */
export function pitchDecimation(sampleRate: number): number {
  return Math.max(1, Math.floor(sampleRate / 4000));
}

/** Fraction of the sample rate the anti-alias low-pass may reach when the usual cutoff lies at or above Nyquist. */
const NEAR_NYQUIST = 0.49;

/**
 * Low-pass before decimation: well above the F0 ceiling, below the decimated Nyquist. At low rates
 * (≤ 2 kHz for a 400 Hz ceiling) that cutoff is at or above Nyquist, where a low-pass removes
 * nothing: the filter then sits just below Nyquist (the kernel needs a cutoff under it).
 */
export function pitchCutoffHz(ceilingHz: number, sampleRate: number): number {
  const cutoff = Math.max(1000, 2 * ceilingHz);
  return cutoff < 0.5 * sampleRate ? cutoff : NEAR_NYQUIST * sampleRate;
}

/** The `pitch` block of interfaces.md. */
export interface PitchStats {
  mean_hz: number | null;
  median_hz: number | null;
  std_semitones: number | null;
  range_semitones: number | null;
  voiced_fraction: number | null;
}

export const NULL_PITCH: PitchStats = Object.freeze({ mean_hz: null, median_hz: null, std_semitones: null, range_semitones: null, voiced_fraction: null });

/** The YIN frames of the F0 track: on the signal decimated by `factor` after a low pass at `cutoffHz`. */
export interface PitchPlan {
  cutoffHz: number;
  factor: number;
  /** Rate of the decimated signal (Hz). */
  rate: number;
  window: number;
  tauMin: number;
  tauMax: number;
  threshold: number;
  /** Frames of the track: the hop-grid frames centred inside speech. */
  frames: number;
  /** Their starts (decimated samples), ascending, made as they are read (not held: 4 bytes per 10 ms of speech on long recordings). */
  starts(): PitchStarts;
  /** Whether a frame's YIN result counts as voiced (the track keeps only the periods of those). */
  voiced(period: number, aperiodicity: number): boolean;
}

/** The F0 track's frame starts one after another: `next()` gives the next start, or undefined after the last (no allocation per frame). */
export class PitchStarts {
  private t = 0;
  constructor(private readonly rate: number, private readonly span: number, private readonly durationS: number, private readonly hopS: number, private readonly speech: Segment[]) {}
  next(): number | undefined {
    const { rate, span, durationS, hopS, speech } = this;
    for (let t = this.t; t + span / rate <= durationS; t += hopS) {
      if (insideSegments(speech, t + span / (2 * rate))) {
        this.t = t + hopS;
        return Math.round(t * rate);
      }
    }
    this.t = Infinity;
    return undefined;
  }
}

/** The F0 track's frames for a channel of `length` samples at `sampleRate` Hz and its speech segments. */
export function planPitch(length: number, sampleRate: number, speech: Segment[], o: AcousticsOptions): PitchPlan {
  const factor = pitchDecimation(sampleRate);
  const rate = sampleRate / factor;
  const window = Math.round(o.pitchWindowS * rate);
  const tauMin = Math.max(2, Math.floor(rate / o.pitchMaxHz));
  const tauMax = Math.ceil(rate / o.pitchMinHz);
  const span = window + tauMax;
  const durationS = length / sampleRate;
  const hopS = o.pitchHopS;
  const starts = () => new PitchStarts(rate, span, durationS, hopS, speech);
  let frames = 0;
  for (const cursor = starts(); cursor.next() !== undefined;) frames++;
  const maxAperiodicity = o.pitchVoicedMaxAperiodicity;
  return {
    cutoffHz: pitchCutoffHz(o.pitchMaxHz, sampleRate), factor, rate, window, tauMin, tauMax, threshold: o.pitchThreshold, frames, starts,
    voiced: (period, aperiodicity) => period > 0 && aperiodicity <= maxAperiodicity,
  };
}

/** The plan's frame starts in one array (the whole-clip kernel takes them so). */
export function pitchStartsArray(plan: PitchPlan): Int32Array {
  const out = new Int32Array(plan.frames);
  const cursor = plan.starts();
  for (let i = 0, start = cursor.next(); start !== undefined; start = cursor.next()) out[i++] = start;
  return out;
}

/** The `pitch` block from YIN's period and aperiodicity on the plan's frames (every frame, in order). */
export function finishPitch(plan: PitchPlan, period: Float32Array, aperiodicity: Float32Array, o: AcousticsOptions): PitchStats {
  void o;
  let voiced = 0;
  for (let i = 0; i < plan.frames; i++) if (plan.voiced(period[i], aperiodicity[i])) voiced++;
  const periods = new Float32Array(voiced);
  for (let i = 0, k = 0; i < plan.frames; i++) if (plan.voiced(period[i], aperiodicity[i])) periods[k++] = period[i];
  return finishPitchVoiced(plan, [periods]);
}

/** The `pitch` block from the YIN periods of the plan's voiced frames, in frame order (in consecutive parts). */
export function finishPitchVoiced(plan: PitchPlan, voicedPeriods: readonly Float32Array[]): PitchStats {
  return summarizeVoicedPeriods(voicedPeriods, plan.rate, plan.frames);
}

/** The `pitch` block of a channel's speech (`speech` non-empty), from the pitch options. */
export function measurePitch(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): PitchStats {
  const plan = planPitch(ch.length, ch.sampleRate, speech, o);
  if (!plan.frames) return summarizeVoicedPeriods([], plan.rate, 0);
  ch.decimateForPitch(plan.cutoffHz, plan.factor);
  const { period, aperiodicity } = ch.yin(pitchStartsArray(plan), plan.window, plan.tauMin, plan.tauMax, plan.threshold);
  return finishPitch(plan, period, aperiodicity, o);
}

/**
 * mean, median, SD of 12·log2(f0/median), 12·log2(P95/P5) and voiced / speech frames, from the YIN
 * periods (f32, all > 0) of the voiced frames in frame order, F0 = rate / period (Hz). The sums run
 * over the frames in order; the percentiles interpolate between order statistics of F0 as
 * percentile() does on a sorted copy of the F0 values: F0 falls as the period rises, so the F0 of
 * rank j is rate / (the period of rank voiced − 1 − j), found by a radix selection on the periods'
 * bits (no copy of the periods, none of the F0 values).
 */
function summarizeVoicedPeriods(parts: readonly Float32Array[], rate: number, speechFrames: number): PitchStats {
  let voiced = 0, sum = 0;
  for (const part of parts) for (let i = 0; i < part.length; i++) { sum += rate / part[i]; voiced++; }
  if (voiced < MIN_VOICED_FRAMES) return { ...NULL_PITCH };
  const periodOfRank = orderStatistics(parts);
  const f0AtRank = (j: number) => rate / periodOfRank(voiced - 1 - j);
  const f0Percentile = (p: number): number => {
    const r = ((voiced - 1) * p) / 100;
    const lo = Math.floor(r), hi = Math.ceil(r);
    const low = f0AtRank(lo);
    return low + (r - lo) * (f0AtRank(hi) - low);
  };
  const median = f0Percentile(50);
  const mean = sum / voiced;
  let semitoneSum = 0;
  for (const part of parts) for (let i = 0; i < part.length; i++) semitoneSum += 12 * Math.log2(rate / part[i] / median);
  const semitoneMean = semitoneSum / voiced;
  let squares = 0;
  for (const part of parts) for (let i = 0; i < part.length; i++) squares += (12 * Math.log2(rate / part[i] / median) - semitoneMean) ** 2;
  const variance = squares / voiced;
  return {
    mean_hz: mean,
    median_hz: median,
    std_semitones: Math.sqrt(variance),
    range_semitones: 12 * Math.log2(f0Percentile(95) / f0Percentile(5)),
    voiced_fraction: speechFrames > 0 ? voiced / speechFrames : null,
  };
}

/**
 * The k-th smallest (from 0) of positive finite f32 values held in `parts`, exactly: a positive
 * f32's bits read as an unsigned integer order the values, so a count of the high 16 bits, then of
 * the low 16 bits within the high bucket holding rank k, names the value. One 256 KB count per query.
 */
export function orderStatistics(parts: readonly Float32Array[]): (k: number) => number {
  const words = parts.map((part) => new Uint32Array(part.buffer, part.byteOffset, part.length));
  // Counts as u32 (a recording holds fewer than 2³² frames): half the bytes of f64, and no boxed number per count before the loop is optimised.
  const high = new Uint32Array(65537);
  for (const w of words) for (let i = 0; i < w.length; i++) high[(w[i] >>> 16) + 1]++;
  for (let b = 1; b <= 65536; b++) high[b] += high[b - 1];
  const bits = new Uint32Array(1);
  const value = new Float32Array(bits.buffer);
  const low = new Uint32Array(65536);
  return (k: number): number => {
    if (!(Number.isInteger(k) && k >= 0 && k < high[65536])) throw new RangeError(`rank ${k} outside [0, ${high[65536]})`);
    // The high bucket h with high[h] ≤ k < high[h + 1] (binary search on the cumulative counts).
    let lo = 0, hi = 65535;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (high[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    const h = lo;
    low.fill(0);
    for (const w of words) for (let i = 0; i < w.length; i++) if (w[i] >>> 16 === h) low[w[i] & 0xffff]++;
    let rest = k - high[h];
    let l = 0;
    while (rest >= low[l]) rest -= low[l++];
    bits[0] = ((h << 16) | l) >>> 0;
    return value[0];
  };
}
