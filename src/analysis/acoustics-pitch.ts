// YIN pitch on a decimated copy of the signal: the F0 track over speech frames and its statistics (acoustics.md §6.1); the syllable voicing check uses the same decimation.
import type { ChannelKernels } from "../dsp/channel-kernels.js";
import { insideSegments, type Segment } from "./acoustics-activity.js";
import type { AcousticsOptions } from "./acoustics-options.js";
import { percentile } from "./percentile.js";

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
  /** Frame starts (decimated samples) of the hop-grid frames centred inside speech. */
  starts: Int32Array;
}

/** The F0 track's frames for a channel of `length` samples at `sampleRate` Hz and its speech segments. */
export function planPitch(length: number, sampleRate: number, speech: Segment[], o: AcousticsOptions): PitchPlan {
  const factor = pitchDecimation(sampleRate);
  const rate = sampleRate / factor;
  const window = Math.round(o.pitchWindowS * rate);
  const tauMin = Math.max(2, Math.floor(rate / o.pitchMaxHz));
  const tauMax = Math.ceil(rate / o.pitchMinHz);
  const span = window + tauMax;
  // Starts go straight into a typed array (4 bytes per 10 ms of speech on long recordings).
  let starts = new Int32Array(1024);
  let count = 0;
  const durationS = length / sampleRate;
  for (let t = 0; t + span / rate <= durationS; t += o.pitchHopS) {
    if (insideSegments(speech, t + span / (2 * rate))) {
      if (count === starts.length) {
        const grown = new Int32Array(2 * count);
        grown.set(starts);
        starts = grown;
      }
      starts[count++] = Math.round(t * rate);
    }
  }
  return { cutoffHz: pitchCutoffHz(o.pitchMaxHz, sampleRate), factor, rate, window, tauMin, tauMax, threshold: o.pitchThreshold, starts: starts.slice(0, count) };
}

/** The `pitch` block from YIN's period and aperiodicity on the plan's frames. */
export function finishPitch(plan: PitchPlan, period: Float32Array, aperiodicity: Float32Array, o: AcousticsOptions): PitchStats {
  const voiced = (i: number) => period[i] > 0 && aperiodicity[i] <= o.pitchVoicedMaxAperiodicity;
  return summarizePitch({
    *[Symbol.iterator]() {
      for (let i = 0; i < plan.starts.length; i++) if (voiced(i)) yield plan.rate / period[i];
    },
  }, plan.starts.length);
}

/** The `pitch` block of a channel's speech (`speech` non-empty), from the pitch options. */
export function measurePitch(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): PitchStats {
  const plan = planPitch(ch.length, ch.sampleRate, speech, o);
  if (!plan.starts.length) return summarizePitch([], 0);
  ch.decimateForPitch(plan.cutoffHz, plan.factor);
  const { period, aperiodicity } = ch.yin(plan.starts, plan.window, plan.tauMin, plan.tauMax, plan.threshold);
  return finishPitch(plan, period, aperiodicity, o);
}

/**
 * mean, median, SD of 12·log2(f0/median), 12·log2(P95/P5) and voiced / speech frames, from the F0
 * values (Hz) of the voiced frames in frame order, which are iterated three times rather than held
 * (only their sorted copy is kept).
 */
function summarizePitch(f0Hz: Iterable<number>, speechFrames: number): PitchStats {
  let voiced = 0, sum = 0;
  for (const f of f0Hz) { sum += f; voiced++; }
  if (voiced < MIN_VOICED_FRAMES) return { ...NULL_PITCH };
  const sorted = new Float64Array(voiced);
  let k = 0;
  for (const f of f0Hz) sorted[k++] = f;
  sorted.sort();
  const median = percentile(sorted, 50)!;
  const mean = sum / voiced;
  let semitoneSum = 0;
  for (const f of f0Hz) semitoneSum += 12 * Math.log2(f / median);
  const semitoneMean = semitoneSum / voiced;
  let squares = 0;
  for (const f of f0Hz) squares += (12 * Math.log2(f / median) - semitoneMean) ** 2;
  const variance = squares / voiced;
  return {
    mean_hz: mean,
    median_hz: median,
    std_semitones: Math.sqrt(variance),
    range_semitones: 12 * Math.log2(percentile(sorted, 95)! / percentile(sorted, 5)!),
    voiced_fraction: speechFrames > 0 ? voiced / speechFrames : null,
  };
}
