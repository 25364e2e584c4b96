// deepeval's analyze_audio measurement record (voice-metrics.md §3.3–3.7) assembled from the parity kernels' raw results.
import { measureParityFrames, type ParityFrames } from "../dsp/parity.js";
import { pyMean, pyPstdev } from "./pynum.js";
import type { ParityMeasurements } from "./types.js";

/** A 20 ms frame is silent iff its RMS is below this (int16 units, §3.1). */
const SILENCE_RMS = 300.0;
/** Length of an analysis frame in ms; longest_silence_ms counts frames at this length (§3.3). */
const FRAME_MS = 20.0;
/** Longest silent run that still counts as a dropout, in frames (§3.4). */
const MAX_DROPOUT_FRAMES = 10;
/** Edge RMS above this makes a clip start or end abruptly: max(2·300, 1000) (§3.1). */
const EDGE_RMS = Math.max(2 * SILENCE_RMS, 1000);
/** dBFS of a zero RMS (§3.2). */
const SILENT_DBFS = -96.0;
const FULL_SCALE = 32768;
/** Order-statistic positions of the SNR estimate (§3.5). */
const SPEECH_QUANTILE = 0.75;
const NOISE_QUANTILE = 0.25;

/** analyze_audio of int16 mono PCM at `sampleRate` Hz; the caller guarantees pcm.length ≥ 1 and sampleRate ≥ 1. */
export function analyzeParity(pcm: Int16Array, sampleRate: number): ParityMeasurements {
  return assembleParityMeasurements(measureParityFrames(pcm, sampleRate));
}

/** The §3.3 record, in the normative key order of ParityMeasurements, from the kernels' raw results. */
export function assembleParityMeasurements(raw: ParityFrames): ParityMeasurements {
  const n = raw.sampleCount;
  const frames = raw.frameRms.length;
  const silent = new Uint8Array(frames);
  let silentFrames = 0;
  for (let k = 0; k < frames; k++) {
    silent[k] = raw.frameRms[k] < SILENCE_RMS ? 1 : 0;
    silentFrames += silent[k];
  }
  const pitches: number[] = [];
  for (const p of raw.pitchHz) if (p > 0) pitches.push(p);
  return {
    duration: n / raw.sampleRate,
    rms_dbfs: toDbfs(raw.rms),
    clipping_fraction: raw.clippedCount / n,
    silence_fraction: frames === 0 ? 1.0 : silentFrames / frames,
    longest_silence_ms: longestRun(silent) * FRAME_MS,
    dropout_events: countDropouts(silent),
    loop_events: raw.loopEvents,
    estimated_snr_db: estimateSnrDb(raw.frameRms),
    zero_crossing_rate: raw.zeroCrossings / Math.max(1, n - 1),
    pitch_mean_hz: pitches.length > 0 ? pyMean(pitches) : null,
    pitch_variation_hz: pitches.length >= 2 ? pyPstdev(pitches) : null,
    starts_abruptly: raw.startRms > EDGE_RMS,
    ends_abruptly: raw.endRms > EDGE_RMS,
  };
}

/** dBFS(r) = 20·log10(r / 32768); −96.0 when r ≤ 0 (§3.2). */
function toDbfs(rms: number): number {
  return rms <= 0 ? SILENT_DBFS : 20 * Math.log10(rms / FULL_SCALE);
}

function longestRun(silent: Uint8Array): number {
  let longest = 0;
  let run = 0;
  for (const s of silent) {
    run = s ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/**
 * §3.4: silent runs [a, b] with a silent-free frame on both sides (so a ≥ 1 and b ≤ F − 2) and at
 * most 10 frames. Like the reference, the scan starts at frame 1 and only looks at runs starting
 * before the last frame.
 */
function countDropouts(silent: Uint8Array): number {
  const frames = silent.length;
  let events = 0;
  let i = 1;
  while (i < frames - 1) {
    if (!silent[i] || silent[i - 1]) {
      i++;
      continue;
    }
    let end = i;
    while (end < frames && silent[end]) end++;
    if (end < frames && end - i <= MAX_DROPOUT_FRAMES) events++;
    i = end;
  }
  return events;
}

/**
 * §3.5: speech = the 75th-percentile-index voiced frame RMS, noise = the 25th-percentile-index quiet
 * one (exact digital silence is in neither list); 0.0 when nothing is voiced.
 */
function estimateSnrDb(frameRms: Float64Array): number {
  let voicedCount = 0;
  let quietCount = 0;
  for (const r of frameRms) {
    if (r >= SILENCE_RMS) voicedCount++;
    else if (r > 0) quietCount++;
  }
  const voiced = new Float64Array(voicedCount);
  const quiet = new Float64Array(quietCount);
  voicedCount = quietCount = 0;
  for (const r of frameRms) {
    if (r >= SILENCE_RMS) voiced[voicedCount++] = r;
    else if (r > 0) quiet[quietCount++] = r;
  }
  const speech = voiced.length > 0 ? selectInPlace(voiced, Math.trunc(SPEECH_QUANTILE * (voiced.length - 1))) : 0.0;
  const noise = quiet.length > 0 ? selectInPlace(quiet, Math.trunc(NOISE_QUANTILE * (quiet.length - 1))) : Math.max(1.0, speech / 100);
  if (speech === 0) return 0.0;
  return 20 * Math.log10(Math.max(speech, 1) / Math.max(noise, 1));
}

/** sorted(values)[k] without sorting: Hoare's quickselect, reordering `values` in place. */
function selectInPlace(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i++] = values[j];
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k];
}
