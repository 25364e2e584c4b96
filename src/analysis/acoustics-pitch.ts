// Pitch statistics from a YIN F0 track over speech frames (acoustics.md §6.1).
import type { ChannelKernels } from "../dsp/acoustics-kernels.js";
import { insideSegments, percentileSorted, type Segment } from "./acoustics-activity.js";
import { pitchCutoffHz, pitchDecimation } from "./acoustics-syllables.js";

const MIN_VOICED_FRAMES = 3;

export interface PitchParameters {
  minHz: number;
  maxHz: number;
  windowS: number;
  hopS: number;
  threshold: number;
  voicedMaxAperiodicity: number;
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

/** F0 (Hz) of the voiced frames among the hop grid frames centred inside `speech`, and the frames examined. */
export function trackPitch(ch: ChannelKernels, speech: Segment[], p: PitchParameters): { f0Hz: number[]; speechFrames: number } {
  const rate = ch.decimateForPitch(pitchCutoffHz(p.maxHz), pitchDecimation(ch.sampleRate));
  const window = Math.round(p.windowS * rate);
  const tauMin = Math.max(2, Math.floor(rate / p.maxHz));
  const tauMax = Math.ceil(rate / p.minHz);
  const span = window + tauMax;
  const starts: number[] = [];
  const durationS = ch.length / ch.sampleRate;
  for (let t = 0; t + span / rate <= durationS; t += p.hopS) {
    if (insideSegments(speech, t + span / (2 * rate))) starts.push(Math.round(t * rate));
  }
  if (!starts.length) return { f0Hz: [], speechFrames: 0 };
  const { period, aperiodicity } = ch.yin(Int32Array.from(starts), window, tauMin, tauMax, p.threshold);
  const f0Hz: number[] = [];
  for (let i = 0; i < starts.length; i++) {
    if (period[i] > 0 && aperiodicity[i] <= p.voicedMaxAperiodicity) f0Hz.push(rate / period[i]);
  }
  return { f0Hz, speechFrames: starts.length };
}

/** mean, median, SD of 12·log2(f0/median), 12·log2(P95/P5) and voiced / speech frames. */
export function summarizePitch(f0Hz: number[], speechFrames: number): PitchStats {
  if (f0Hz.length < MIN_VOICED_FRAMES) return { ...NULL_PITCH };
  const sorted = f0Hz.slice().sort((a, b) => a - b);
  const median = percentileSorted(sorted, 50)!;
  const mean = f0Hz.reduce((s, f) => s + f, 0) / f0Hz.length;
  const semitones = f0Hz.map((f) => 12 * Math.log2(f / median));
  const semitoneMean = semitones.reduce((s, v) => s + v, 0) / semitones.length;
  const variance = semitones.reduce((s, v) => s + (v - semitoneMean) ** 2, 0) / semitones.length;
  return {
    mean_hz: mean,
    median_hz: median,
    std_semitones: Math.sqrt(variance),
    range_semitones: 12 * Math.log2(percentileSorted(sorted, 95)! / percentileSorted(sorted, 5)!),
    voiced_fraction: speechFrames > 0 ? f0Hz.length / speechFrames : null,
  };
}
