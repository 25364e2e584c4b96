// Speaking rate from audio: syllable nuclei after de Jong & Wempe (2009) as specified in acoustics.md §3.2.
//
// Intensity peaks that stand ≥ minDipDb above the dips on both sides (v3 dip-peak-dip), above the
// 99th-percentile-minus-25 dB threshold, voiced by YIN and inside a sounding interval are nuclei.
import type { ChannelKernels } from "../dsp/channel-kernels.js";
import { mergeSegments, insideSegments, totalDuration, type Segment } from "./acoustics-activity.js";
import type { AcousticsOptions } from "./acoustics-options.js";
import { pitchCutoffHz, pitchDecimation } from "./acoustics-pitch.js";
import { percentile } from "./percentile.js";

/** Praat's intensity window is 3.2 / pitch floor and its time step 0.8 / pitch floor. */
const WINDOW_PERIODS = 3.2;
const STEP_PERIODS = 0.8;
/** Kaiser shape giving Praat's Gaussian-like intensity window. */
const KAISER_BETA = 20;
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
  /** Peak times of the accepted nuclei (s). */
  times: number[];
  /** Σ sounding intervals (s): VAD speech merged across gaps shorter than minPauseS. */
  phonationTimeS: number;
}

/** Count syllable nuclei of one channel from the syllable options; `speech` are the VAD segments of the same channel. */
export function countSyllableNuclei(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): SyllableResult {
  const sounding = mergeSegments(speech, o.syllableMinPauseS);
  const phonationTimeS = totalDuration(sounding);
  const fs = ch.sampleRate;
  const windowLength = Math.round((WINDOW_PERIODS / o.syllableIntensityFloorHz) * fs);
  const step = Math.round((STEP_PERIODS / o.syllableIntensityFloorHz) * fs);
  const intensity = ch.intensity(windowLength, step, KAISER_BETA);
  if (intensity.length < 3 || sounding.length === 0) return { nuclei: 0, times: [], phonationTimeS };
  const sorted = intensity.slice().sort();
  const threshold = Math.max(percentile(sorted, 99)! - o.syllableThresholdBelowPeakDb, sorted[0]);
  const frameTime = (f: number) => (f * step + windowLength / 2) / fs;
  const candidates = findDipPeakDip(intensity, o.syllableMinDipDb)
    .filter((i) => intensity[i] > threshold)
    .map((i) => frameTime(refinePeak(intensity, i)))
    .filter((t) => insideSegments(sounding, t));
  if (!candidates.length) return { nuclei: 0, times: [], phonationTimeS };
  // Voicing: YIN over a 40 ms frame centred on each peak, floor/ceiling as Praat's To Pitch (ac).
  const rate = ch.decimateForPitch(pitchCutoffHz(o.syllableVoicingCeilingHz, fs), pitchDecimation(fs));
  const window = Math.round(VOICING_WINDOW_S * rate);
  const tauMin = Math.max(2, Math.floor(rate / o.syllableVoicingCeilingHz));
  const tauMax = Math.ceil(rate / o.syllableVoicingFloorHz);
  const starts = Int32Array.from(candidates, (t) => Math.round(t * rate - (window + tauMax) / 2));
  const { aperiodicity } = ch.yin(starts, window, tauMin, tauMax, o.syllableVoicingThreshold);
  const times = candidates.filter((_, i) => aperiodicity[i] <= o.syllableVoicingThreshold);
  return { nuclei: times.length, times, phonationTimeS };
}
