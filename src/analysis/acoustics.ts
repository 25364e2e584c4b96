// The standards set of one clip (the `acoustics` block of interfaces.md) and streaming loudness (acoustics.md §1–§6).
//
// Channels: loudness and peaks use every channel with the BS.1770 weights (acoustics.md §1.2); all
// other measures run on one signal, by default the per-sample mean of the channels (`mixdown`), or
// the first channel. Dual-channel calls should be measured per channel (one call per party) and
// combined with measureOverlap; the library never mixes parties on its own for those.
import { ChannelKernels, type SignalStats } from "../dsp/channel-kernels.js";
import { PlanarKernels } from "../dsp/clip-kernels.js";
import { defaultChannelWeights, LoudnessMeter, type LoudnessMeasurement } from "../dsp/loudness.js";
import { withArena } from "../dsp/wasm.js";
import { computePauseStats, detectSpeechSegments, segmentsFromRuns, speechRunOptions, totalDuration, type PauseStats, type Segment } from "./acoustics-activity.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "./acoustics-options.js";
import { measurePitch, NULL_PITCH, type PitchStats } from "./acoustics-pitch.js";
import { classifyBandwidth, measureBandEdgeHz, wadaSnrDb, type BandwidthClass } from "./acoustics-quality.js";
import { countSyllableNuclei, type SyllableResult } from "./acoustics-syllables.js";
import { countWords } from "./python-text.js";

export type { BandwidthClass, PauseStats, PitchStats, Segment };

/** The loudness subset of the acoustics block (`analyze --set loudness`). */
export interface LoudnessBlock {
  integrated_lufs: number | null;
  momentary_max_lufs: number | null;
  short_term_max_lufs: number | null;
  lra_lu: number | null;
  sample_peak_dbfs: number | null;
  true_peak_dbtp: number | null;
}

/** The `acoustics` block of interfaces.md; undefined values are null, never ±Infinity or NaN. */
export interface AcousticsBlock extends LoudnessBlock {
  speech_ratio: number | null;
  speech_segments: Segment[];
  pauses: PauseStats;
  syllables_per_s: number | null;
  articulation_rate: number | null;
  words_per_minute: number | null;
  wada_snr_db: number | null;
  dc_offset: number | null;
  clipping_runs: number;
  bandwidth: BandwidthClass | null;
  pitch: PitchStats;
}

/** Streaming loudness of one programme: addFrames(planar chunk) as often as needed, then result(). */
export interface AcousticsLoudnessMeter {
  addFrames(planarChunk: readonly Float32Array[]): void;
  result(): LoudnessBlock;
}

function finite(v: number | null): number | null {
  return v !== null && Number.isFinite(v) ? v : null;
}

/** The loudness block of a meter's measurement (undefined values null). */
export function toLoudnessBlock(m: LoudnessMeasurement): LoudnessBlock {
  return {
    integrated_lufs: finite(m.integratedLufs),
    momentary_max_lufs: finite(m.momentaryMaxLufs),
    short_term_max_lufs: finite(m.shortTermMaxLufs),
    lra_lu: finite(m.loudnessRangeLu),
    sample_peak_dbfs: finite(m.samplePeakDbfs),
    true_peak_dbtp: finite(m.truePeakDbtp),
  };
}

/** The meter options of the standards set for `channels` channels. */
export function meterOptions(o: AcousticsOptions, channels: number) {
  return { weights: o.channelWeights ?? defaultChannelWeights(channels), truePeak: o.truePeak };
}

/**
 * A streaming BS.1770-5 meter for `channels` planar channels at `sampleRate` Hz (integer). Each
 * addFrames / result call opens an arena session briefly (its own state is kept outside), so it
 * must not be called while another session is open on the same thread.
 */
export function createLoudnessMeter(channels: number, sampleRate: number, options: Partial<AcousticsOptions> = {}): AcousticsLoudnessMeter {
  const meter = new LoudnessMeter(channels, sampleRate, meterOptions(resolveAcousticsOptions(options), channels));
  return {
    addFrames: (planarChunk) => meter.addFrames(planarChunk),
    result: () => toLoudnessBlock(meter.result()),
  };
}

function validateChannels(channels: readonly Float32Array[], sampleRate: number): void {
  if (!Array.isArray(channels) || channels.length === 0) throw new RangeError("channels must be a non-empty array of Float32Array");
  if (channels.some((c) => !(c instanceof Float32Array) || c.length !== channels[0].length)) {
    throw new RangeError("channels must be Float32Arrays of equal length");
  }
  validateSampleRate(sampleRate);
}

/** The sample rates the standards set measures (acoustics.md: K-weighting, true peak and YIN are designed for 1–768 kHz). */
export const STANDARDS_SAMPLE_RATE_HZ = Object.freeze({ min: 1000, max: 768000 });

/** Why the standards set cannot measure audio at `sampleRate`, or null when it can. */
export function standardsSampleRateProblem(sampleRate: number): string | null {
  if (Number.isInteger(sampleRate) && sampleRate >= STANDARDS_SAMPLE_RATE_HZ.min && sampleRate <= STANDARDS_SAMPLE_RATE_HZ.max) return null;
  return `sample rate ${sampleRate} Hz is outside ${STANDARDS_SAMPLE_RATE_HZ.min}–${STANDARDS_SAMPLE_RATE_HZ.max} Hz, the range the standards set measures`;
}

/** A RangeError unless the standards set measures `sampleRate`. */
export function validateSampleRate(sampleRate: number): void {
  if (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 768000) {
    throw new RangeError(`sampleRate must be an integer in [1000, 768000] Hz, got ${sampleRate}`);
  }
}

/** Integrated, momentary/short-term max, LRA, sample and true peak of planar float channels. */
export function analyzeLoudness(channels: readonly Float32Array[], sampleRate: number, options: Partial<AcousticsOptions> = {}): LoudnessBlock {
  validateChannels(channels, sampleRate);
  const o = resolveAcousticsOptions(options);
  return withArena((arena) => measureLoudness(PlanarKernels.copyOf(arena, channels, sampleRate), o));
}

/** The loudness block of planar channels already in an arena session. */
export function measureLoudness(planar: PlanarKernels, o: AcousticsOptions): LoudnessBlock {
  validateSampleRate(planar.sampleRate);
  return toLoudnessBlock(planar.loudness(meterOptions(o, planar.channels)));
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * The whole standards set of one clip: planar float channels in [−1, 1) at an integer `sampleRate`.
 * `transcript` (the clip's words) enables words_per_minute.
 */
export function analyzeAcoustics(
  channels: readonly Float32Array[],
  sampleRate: number,
  options: Partial<AcousticsOptions> = {},
  transcript?: string,
): AcousticsBlock {
  validateChannels(channels, sampleRate);
  const o = resolveAcousticsOptions(options);
  return withArena((arena) => measureAcoustics(PlanarKernels.copyOf(arena, channels, sampleRate), o, transcript));
}

/** The engine's speech segments (seconds, acoustics.md §2.3) of one float channel in [−1, 1). */
export function detectSpeech(samples: Float32Array, sampleRate: number, options: Partial<AcousticsOptions> = {}): Segment[] {
  validateChannels([samples], sampleRate);
  const o = resolveAcousticsOptions(options);
  return withArena((arena) => detectSpeechSegments(ChannelKernels.copyOf(arena, samples, sampleRate), o));
}

/** The engine's speech segments (s, rounded to µs, ends inside the clip) from a channel's speech runs. */
export function speechSegmentsOfRuns(runs: Int32Array, o: AcousticsOptions, durationS: number): Segment[] {
  // The segments are new: rounded where they are (no second list of them).
  const segments = segmentsFromRuns(runs, o);
  for (const segment of segments) {
    segment[0] = round6(segment[0]);
    segment[1] = round6(Math.min(segment[1], durationS));
  }
  return segments;
}

/** Everything the standards set measured on one signal, before it becomes an acoustics block. */
export interface StandardsParts {
  /** Samples of the signal. */
  frames: number;
  sampleRate: number;
  speech: Segment[];
  syllables: SyllableResult;
  stats: SignalStats;
  edgeHz: number | null;
  pitch: PitchStats;
  /** Shortest silence counted as a pause (s), the option minPauseS. */
  minPauseS: number;
}

/** The acoustics block from the loudness block and the measured parts (`transcript` enables words_per_minute). */
export function assembleAcoustics(loudness: LoudnessBlock, parts: StandardsParts, transcript?: string): AcousticsBlock {
  const { frames: n, sampleRate, speech, syllables, stats, edgeHz: edge, pitch } = parts;
  const durationS = n / sampleRate;
  const words = transcript === undefined ? 0 : countWords(transcript);
  const phonation = syllables.phonationTimeS;
  return {
    ...loudness,
    speech_ratio: durationS > 0 ? finite(totalDuration(speech) / durationS) : null,
    speech_segments: speech,
    pauses: computePauseStats(speech, durationS, parts.minPauseS),
    syllables_per_s: durationS > 0 ? syllables.nuclei / durationS : null,
    articulation_rate: phonation > 0 ? syllables.nuclei / phonation : null,
    words_per_minute: words > 0 && phonation > 0 ? words / (phonation / 60) : null,
    wada_snr_db: finite(wadaSnrDb(stats, n)),
    dc_offset: n > 0 ? stats.sum / n : null,
    clipping_runs: stats.clippingRuns,
    bandwidth: edge === null ? null : classifyBandwidth(edge),
    pitch: {
      mean_hz: finite(pitch.mean_hz),
      median_hz: finite(pitch.median_hz),
      std_semitones: finite(pitch.std_semitones),
      range_semitones: finite(pitch.range_semitones),
      voiced_fraction: finite(pitch.voiced_fraction),
    },
  };
}

/** The clipping level (linear) and shortest clipping run (samples) of the options at `sampleRate`. */
export function clippingCriteria(o: AcousticsOptions, sampleRate: number): { level: number; minRun: number } {
  return { level: Math.pow(10, o.clipLevelDbfs / 20), minRun: sampleRate <= 8000 ? o.clipMinRunNarrowbandSamples : o.clipMinRunSamples };
}

/** The standards set of planar channels already in an arena session (a clip copied in once), with resolved options. */
export function measureAcoustics(planar: PlanarKernels, o: AcousticsOptions, transcript?: string): AcousticsBlock {
  const loudness = measureLoudness(planar, o);
  const { sampleRate, frames: n } = planar;
  const durationS = n / sampleRate;
  const ch = planar.mixdown(o.mixdown);
  const speech = speechSegmentsOfRuns(ch.speechRuns(speechRunOptions(o)), o, durationS);
  const syllables = countSyllableNuclei(ch, speech, o);
  const clip = clippingCriteria(o, sampleRate);
  const stats = ch.stats(clip.level, clip.minRun);
  const edgeHz = measureBandEdgeHz(ch, speech, o.bandwidthFloorDb);
  const pitch = speech.length ? measurePitch(ch, speech, o) : { ...NULL_PITCH };
  return assembleAcoustics(loudness, { frames: n, sampleRate, speech, syllables, stats, edgeHz, pitch, minPauseS: o.minPauseS }, transcript);
}
