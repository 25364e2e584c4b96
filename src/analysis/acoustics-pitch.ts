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

/**
 * The `pitch` block from the YIN periods of the plan's voiced frames, in frame order (in consecutive
 * parts). `scratch`, when it holds at least as many values and is none of the parts' storage, takes
 * the sorted copy (a spent array reused).
 */
export function finishPitchVoiced(plan: PitchPlan, voicedPeriods: readonly Float32Array[], scratch?: Float32Array): PitchStats {
  return summarizeVoicedPeriods(voicedPeriods, plan.rate, plan.frames, scratch);
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
 * periods (f32) of the voiced frames in frame order, F0 = rate / period (Hz). The sums run over the
 * frames in order; the percentiles read an ascending copy of the periods from its end (F0 falls as
 * the period rises, so that is F0 ascending: the same values a sorted copy of the F0 values holds,
 * at 4 bytes a frame instead of 8).
 */
function summarizeVoicedPeriods(parts: readonly Float32Array[], rate: number, speechFrames: number, scratch?: Float32Array): PitchStats {
  let voiced = 0, sum = 0;
  for (const part of parts) for (let i = 0; i < part.length; i++) { sum += rate / part[i]; voiced++; }
  if (voiced < MIN_VOICED_FRAMES) return { ...NULL_PITCH };
  const reusable = scratch && scratch.length >= voiced && parts.every((part) => part.buffer !== scratch.buffer);
  const periods = reusable ? scratch.subarray(0, voiced) : new Float32Array(voiced);
  let k = 0;
  for (const part of parts) { periods.set(part, k); k += part.length; }
  periods.sort();
  // percentile() (linear interpolation between closest ranks) on F0 ascending: rank j is rate / periods[voiced − 1 − j].
  const f0AtRank = (j: number) => rate / periods[voiced - 1 - j];
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
