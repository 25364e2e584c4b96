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
  const starts: number[] = [];
  const durationS = length / sampleRate;
  for (let t = 0; t + span / rate <= durationS; t += o.pitchHopS) {
    if (insideSegments(speech, t + span / (2 * rate))) starts.push(Math.round(t * rate));
  }
  return { cutoffHz: pitchCutoffHz(o.pitchMaxHz, sampleRate), factor, rate, window, tauMin, tauMax, threshold: o.pitchThreshold, starts: Int32Array.from(starts) };
}

/** The `pitch` block from YIN's period and aperiodicity on the plan's frames. */
export function finishPitch(plan: PitchPlan, period: Float32Array, aperiodicity: Float32Array, o: AcousticsOptions): PitchStats {
  const f0Hz: number[] = [];
  for (let i = 0; i < plan.starts.length; i++) {
    if (period[i] > 0 && aperiodicity[i] <= o.pitchVoicedMaxAperiodicity) f0Hz.push(plan.rate / period[i]);
  }
  return summarizePitch(f0Hz, plan.starts.length);
}

/** The `pitch` block of a channel's speech (`speech` non-empty), from the pitch options. */
export function measurePitch(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): PitchStats {
  const plan = planPitch(ch.length, ch.sampleRate, speech, o);
  if (!plan.starts.length) return summarizePitch([], 0);
  ch.decimateForPitch(plan.cutoffHz, plan.factor);
  const { period, aperiodicity } = ch.yin(plan.starts, plan.window, plan.tauMin, plan.tauMax, plan.threshold);
  return finishPitch(plan, period, aperiodicity, o);
}

/** mean, median, SD of 12·log2(f0/median), 12·log2(P95/P5) and voiced / speech frames. */
function summarizePitch(f0Hz: number[], speechFrames: number): PitchStats {
  if (f0Hz.length < MIN_VOICED_FRAMES) return { ...NULL_PITCH };
  const sorted = f0Hz.slice().sort((a, b) => a - b);
  const median = percentile(sorted, 50)!;
  const mean = f0Hz.reduce((s, f) => s + f, 0) / f0Hz.length;
  const semitones = f0Hz.map((f) => 12 * Math.log2(f / median));
  const semitoneMean = semitones.reduce((s, v) => s + v, 0) / semitones.length;
  const variance = semitones.reduce((s, v) => s + (v - semitoneMean) ** 2, 0) / semitones.length;
  return {
    mean_hz: mean,
    median_hz: median,
    std_semitones: Math.sqrt(variance),
    range_semitones: 12 * Math.log2(percentile(sorted, 95)! / percentile(sorted, 5)!),
    voiced_fraction: speechFrames > 0 ? f0Hz.length / speechFrames : null,
  };
}
