// deepeval's analyze_audio measurement record (voice-metrics.md §3.3–3.7) assembled from the parity kernels' raw results.
import { measureParityFrames, type ParityFrames } from "../dsp/parity.js";
import type { ParityMeasurements } from "./types.js";

/** The silence threshold of §3.1 (int16 units): the kernels apply it to frames; here it sets the edge threshold. */
const SILENCE_RMS = 300.0;
/** Length of an analysis frame in ms; longest_silence_ms counts frames at this length (§3.3). */
const FRAME_MS = 20.0;
/** Edge RMS above this makes a clip start or end abruptly: max(2·300, 1000) (§3.1). */
const EDGE_RMS = Math.max(2 * SILENCE_RMS, 1000);
/** dBFS of a zero RMS (§3.2). */
const SILENT_DBFS = -96.0;
const FULL_SCALE = 32768;

/** analyze_audio of int16 mono PCM at `sampleRate` Hz; the caller guarantees pcm.length ≥ 1 and sampleRate ≥ 1. */
export function analyzeParity(pcm: Int16Array, sampleRate: number): ParityMeasurements {
  return assembleParityMeasurements(measureParityFrames(pcm, sampleRate));
}

/** The §3.3 record, in the normative key order of ParityMeasurements, from the kernels' raw results. */
export function assembleParityMeasurements(raw: ParityFrames): ParityMeasurements {
  const n = raw.sampleCount;
  const frames = raw.frameCount;
  return {
    duration: n / raw.sampleRate,
    rms_dbfs: toDbfs(raw.rms),
    clipping_fraction: raw.clippedCount / n,
    silence_fraction: frames === 0 ? 1.0 : raw.silentFrameCount / frames,
    longest_silence_ms: raw.longestSilentRun * FRAME_MS,
    dropout_events: raw.dropoutEvents,
    loop_events: raw.loopEvents,
    estimated_snr_db: estimateSnrDb(raw),
    zero_crossing_rate: raw.zeroCrossings / Math.max(1, n - 1),
    pitch_mean_hz: raw.pitchMeanHz,
    pitch_variation_hz: raw.pitchPstdevHz,
    starts_abruptly: raw.startRms > EDGE_RMS,
    ends_abruptly: raw.endRms > EDGE_RMS,
  };
}

/** dBFS(r) = 20·log10(r / 32768); −96.0 when r ≤ 0 (§3.2). */
function toDbfs(rms: number): number {
  return rms <= 0 ? SILENT_DBFS : 20 * Math.log10(rms / FULL_SCALE);
}

/**
 * §3.5: speech = the 75th-percentile-index voiced frame RMS, noise = the 25th-percentile-index quiet
 * one (exact digital silence is in neither list; the kernel selects both); 0.0 when nothing is voiced.
 */
function estimateSnrDb(raw: ParityFrames): number {
  const speech = raw.voicedFrameCount > 0 ? raw.speechRms : 0.0;
  const noise = raw.quietFrameCount > 0 ? raw.noiseRms : Math.max(1.0, speech / 100);
  if (speech === 0) return 0.0;
  return 20 * Math.log10(Math.max(speech, 1) / Math.max(noise, 1));
}
