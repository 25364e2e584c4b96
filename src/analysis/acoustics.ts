// The standards set per clip (the `acoustics` block of interfaces.md), its options, streaming loudness and two-party overlap (acoustics.md).
//
// Channels: loudness and peaks use every channel with the BS.1770 weights (acoustics.md §1.2); all
// other measures run on one signal, by default the per-sample mean of the channels (`mixdown`), or
// the first channel. Dual-channel calls should be measured per channel (one call per party) and
// combined with measureOverlap; the library never mixes parties on its own for those.
import { ChannelKernels } from "../dsp/acoustics-kernels.js";
import { defaultChannelWeights, LoudnessMeter, type LoudnessMeasurement } from "../dsp/loudness.js";
import { computePauseStats, detectSpeechSegments, totalDuration, type ActivityParameters, type PauseStats, type Segment } from "./acoustics-activity.js";
import { trackPitch, summarizePitch, NULL_PITCH, type PitchStats } from "./acoustics-pitch.js";
import { classifyBandwidth, measureBandEdgeHz, wadaSnrDb, type BandwidthClass } from "./acoustics-quality.js";
import { countSyllableNuclei, countWords } from "./acoustics-syllables.js";

export type { BandwidthClass, PauseStats, PitchStats, Segment };

/** Every option of the standards set, with its unit; defaults in DEFAULT_ACOUSTICS_OPTIONS. */
export interface AcousticsOptions {
  /**
   * Signal used for everything except loudness when there are several channels.
   * @defaultValue "mean"
   */
  mixdown: "mean" | "first";
  /**
   * BS.1770 channel weights G_i; null = from the channel count (5.0/5.1 surrounds 1.41, LFE 0, else 1).
   * @defaultValue null
   */
  channelWeights: readonly number[] | null;
  /**
   * Measure sample and true peak (BS.1770-5 Annex 2); off leaves both null.
   * @defaultValue true
   */
  truePeak: boolean;
  /**
   * VAD: percentile of the frame levels taken as the speech peak P (%).
   * @defaultValue 99
   */
  vadPeakPercentile: number;
  /**
   * VAD: percentile of the frame levels in the noise window taken as the noise floor N (%).
   * @defaultValue 10
   */
  vadNoisePercentile: number;
  /**
   * VAD: length of the centred noise-floor window (s); the whole clip when shorter.
   * @defaultValue 10
   */
  vadNoiseWindowS: number;
  /**
   * VAD: speech starts above max(N + this, P − vadEnterBelowPeakDb) (dB).
   * @defaultValue 12
   */
  vadEnterAboveNoiseDb: number;
  /**
   * VAD: see vadEnterAboveNoiseDb (dB).
   * @defaultValue 35
   */
  vadEnterBelowPeakDb: number;
  /**
   * VAD: speech continues while the level stays above the entry threshold minus this (dB).
   * @defaultValue 6
   */
  vadStayBelowEnterDb: number;
  /**
   * VAD: dips shorter than this (s) do not end a segment; segment ends are not padded by it.
   * @defaultValue 0.2
   */
  vadHangoverS: number;
  /**
   * VAD clean-up: gaps shorter than this (s) are filled.
   * @defaultValue 0.1
   */
  vadMinGapS: number;
  /**
   * VAD clean-up: speech bursts shorter than this (s) are dropped.
   * @defaultValue 0.1
   */
  vadMinSpeechS: number;
  /**
   * Shortest silence between two speech segments counted as a pause (s).
   * @defaultValue 0.25
   */
  minPauseS: number;
  /**
   * Syllables: pitch floor of the intensity contour, window 3.2/floor, step 0.8/floor (Hz).
   * @defaultValue 50
   */
  syllableIntensityFloorHz: number;
  /**
   * Syllables: peak threshold below the 99th-percentile intensity (dB).
   * @defaultValue 25
   */
  syllableThresholdBelowPeakDb: number;
  /**
   * Syllables: minimum dip on both sides of a peak (dB).
   * @defaultValue 2
   */
  syllableMinDipDb: number;
  /**
   * Syllables: a peak is voiced when YIN's aperiodicity d′ is at most this. Praat's voicing threshold
   * 0.25 is an autocorrelation strength r (d′ ≈ 1 − r), so acoustics.md §3.2's literal d′ ≤ 0.25 is far
   * stricter than de Jong & Wempe's check: on espeak-ng speech at 100–350 wpm it rejected up to 45 % of
   * the nuclei at 350 wpm, while 0.5 keeps every rate within 13 % of the known syllable count.
   * @defaultValue 0.5
   */
  syllableVoicingThreshold: number;
  /**
   * Syllables: pitch floor of the voicing check (Hz).
   * @defaultValue 30
   */
  syllableVoicingFloorHz: number;
  /**
   * Syllables: pitch ceiling of the voicing check (Hz).
   * @defaultValue 450
   */
  syllableVoicingCeilingHz: number;
  /**
   * Syllables: sounding intervals merge VAD speech across gaps shorter than this (s).
   * @defaultValue 0.3
   */
  syllableMinPauseS: number;
  /**
   * Pitch: lowest F0 searched (Hz).
   * @defaultValue 60
   */
  pitchMinHz: number;
  /**
   * Pitch: highest F0 searched (Hz).
   * @defaultValue 400
   */
  pitchMaxHz: number;
  /**
   * Pitch: YIN integration window W (s).
   * @defaultValue 0.025
   */
  pitchWindowS: number;
  /**
   * Pitch: frame hop (s).
   * @defaultValue 0.01
   */
  pitchHopS: number;
  /**
   * Pitch: YIN absolute threshold.
   * @defaultValue 0.1
   */
  pitchThreshold: number;
  /**
   * Pitch: a speech frame is voiced when d′(τ*) is at most this (2 × threshold).
   * @defaultValue 0.2
   */
  pitchVoicedMaxAperiodicity: number;
  /**
   * Clipping level (dBFS): samples with |x| at or above it count (Netflix's −0.45 dBFS; acoustics.md §4 uses |x| ≥ 0.999 ≈ −0.009 dBFS).
   * @defaultValue -0.45
   */
  clipLevelDbfs: number;
  /**
   * Shortest clipping run (samples) counted as an event above 8 kHz.
   * @defaultValue 3
   */
  clipMinRunSamples: number;
  /**
   * Shortest clipping run (samples) at 8 kHz and below.
   * @defaultValue 2
   */
  clipMinRunNarrowbandSamples: number;
  /**
   * Bandwidth: the band edge is the highest frequency within this of the 300–3000 Hz median level (dB).
   * @defaultValue 35
   */
  bandwidthFloorDb: number;
}

/** Defaults of every acoustics option (acoustics.md §1–§6 and the clipping level). */
export const DEFAULT_ACOUSTICS_OPTIONS: Readonly<AcousticsOptions> = Object.freeze({
  mixdown: "mean",
  channelWeights: null,
  truePeak: true,
  vadPeakPercentile: 99,
  vadNoisePercentile: 10,
  vadNoiseWindowS: 10,
  vadEnterAboveNoiseDb: 12,
  vadEnterBelowPeakDb: 35,
  vadStayBelowEnterDb: 6,
  vadHangoverS: 0.2,
  vadMinGapS: 0.1,
  vadMinSpeechS: 0.1,
  minPauseS: 0.25,
  syllableIntensityFloorHz: 50,
  syllableThresholdBelowPeakDb: 25,
  syllableMinDipDb: 2,
  syllableVoicingThreshold: 0.5,
  syllableVoicingFloorHz: 30,
  syllableVoicingCeilingHz: 450,
  syllableMinPauseS: 0.3,
  pitchMinHz: 60,
  pitchMaxHz: 400,
  pitchWindowS: 0.025,
  pitchHopS: 0.01,
  pitchThreshold: 0.1,
  pitchVoicedMaxAperiodicity: 0.2,
  clipLevelDbfs: -0.45,
  clipMinRunSamples: 3,
  clipMinRunNarrowbandSamples: 2,
  bandwidthFloorDb: 35,
} satisfies AcousticsOptions);

/** Allowed ranges of the numeric options: [min, max] inclusive. */
const RANGES: Partial<Record<keyof AcousticsOptions, [number, number]>> = {
  vadPeakPercentile: [50, 100],
  vadNoisePercentile: [0, 50],
  vadNoiseWindowS: [0.5, 600],
  vadEnterAboveNoiseDb: [0, 60],
  vadEnterBelowPeakDb: [0, 100],
  vadStayBelowEnterDb: [0, 40],
  vadHangoverS: [0, 5],
  vadMinGapS: [0, 5],
  vadMinSpeechS: [0, 5],
  minPauseS: [0, 60],
  syllableIntensityFloorHz: [20, 200],
  syllableThresholdBelowPeakDb: [0, 80],
  syllableMinDipDb: [0, 20],
  syllableVoicingThreshold: [0, 1],
  syllableVoicingFloorHz: [20, 200],
  syllableVoicingCeilingHz: [100, 1000],
  syllableMinPauseS: [0, 5],
  pitchMinHz: [20, 500],
  pitchMaxHz: [50, 1000],
  pitchWindowS: [0.005, 0.1],
  pitchHopS: [0.001, 0.1],
  pitchThreshold: [0, 1],
  pitchVoicedMaxAperiodicity: [0, 1],
  clipLevelDbfs: [-60, 0],
  clipMinRunSamples: [1, 1000],
  clipMinRunNarrowbandSamples: [1, 1000],
  bandwidthFloorDb: [5, 80],
};

/** Defaults overlaid with `partial`; throws a RangeError naming the field and its allowed range. */
export function resolveAcousticsOptions(partial: Partial<AcousticsOptions> = {}): AcousticsOptions {
  const o: AcousticsOptions = { ...DEFAULT_ACOUSTICS_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof AcousticsOptions, unknown][]) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_ACOUSTICS_OPTIONS)) throw new RangeError(`acoustics option ${key} is unknown`);
    (o as unknown as Record<string, unknown>)[key] = value;
  }
  for (const [key, [lo, hi]] of Object.entries(RANGES) as [keyof AcousticsOptions, [number, number]][]) {
    const v = o[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
      throw new RangeError(`acoustics option ${key} must be a number in [${lo}, ${hi}], got ${String(v)}`);
    }
  }
  if (o.mixdown !== "mean" && o.mixdown !== "first") throw new RangeError(`acoustics option mixdown must be "mean" or "first", got ${String(o.mixdown)}`);
  if (typeof o.truePeak !== "boolean") throw new RangeError("acoustics option truePeak must be a boolean");
  if (o.channelWeights !== null && (!Array.isArray(o.channelWeights) || o.channelWeights.some((w) => !(w >= 0)))) {
    throw new RangeError("acoustics option channelWeights must be null or an array of non-negative numbers");
  }
  if (o.pitchMinHz >= o.pitchMaxHz) throw new RangeError("acoustics option pitchMinHz must be below pitchMaxHz");
  if (o.syllableVoicingFloorHz >= o.syllableVoicingCeilingHz) throw new RangeError("acoustics option syllableVoicingFloorHz must be below syllableVoicingCeilingHz");
  return o;
}

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

function toLoudnessBlock(m: LoudnessMeasurement): LoudnessBlock {
  return {
    integrated_lufs: finite(m.integratedLufs),
    momentary_max_lufs: finite(m.momentaryMaxLufs),
    short_term_max_lufs: finite(m.shortTermMaxLufs),
    lra_lu: finite(m.loudnessRangeLu),
    sample_peak_dbfs: finite(m.samplePeakDbfs),
    true_peak_dbtp: finite(m.truePeakDbtp),
  };
}

/**
 * A streaming BS.1770-5 meter for `channels` planar channels at `sampleRate` Hz (integer). Each
 * addFrames / result call uses the WebAssembly arena briefly (its own state is kept outside), so
 * calls must not interleave with another open arena scope on the same thread.
 */
export function createLoudnessMeter(channels: number, sampleRate: number, options: Partial<AcousticsOptions> = {}): AcousticsLoudnessMeter {
  const o = resolveAcousticsOptions(options);
  const meter = new LoudnessMeter(channels, sampleRate, {
    weights: o.channelWeights ?? defaultChannelWeights(channels),
    truePeak: o.truePeak,
  });
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
  if (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 768000) {
    throw new RangeError(`sampleRate must be an integer in [1000, 768000] Hz, got ${sampleRate}`);
  }
}

/** Integrated, momentary/short-term max, LRA, sample and true peak of planar float channels. */
export function analyzeLoudness(channels: readonly Float32Array[], sampleRate: number, options: Partial<AcousticsOptions> = {}): LoudnessBlock {
  validateChannels(channels, sampleRate);
  const meter = createLoudnessMeter(channels.length, sampleRate, options);
  meter.addFrames(channels);
  return meter.result();
}

function mixdown(channels: readonly Float32Array[], mode: AcousticsOptions["mixdown"]): Float32Array {
  if (channels.length === 1 || mode === "first") return channels[0];
  const out = new Float32Array(channels[0].length);
  for (const c of channels) for (let i = 0; i < out.length; i++) out[i] += c[i];
  const scale = 1 / channels.length;
  for (let i = 0; i < out.length; i++) out[i] *= scale;
  return out;
}

/** The speech-activity parameters of resolved options (also used to cut dual-channel recordings into turns). */
export function activityParameters(o: AcousticsOptions = DEFAULT_ACOUSTICS_OPTIONS): ActivityParameters {
  return {
    peakPercentile: o.vadPeakPercentile,
    noisePercentile: o.vadNoisePercentile,
    noiseWindowS: o.vadNoiseWindowS,
    enterAboveNoiseDb: o.vadEnterAboveNoiseDb,
    enterBelowPeakDb: o.vadEnterBelowPeakDb,
    stayBelowEnterDb: o.vadStayBelowEnterDb,
    hangoverS: o.vadHangoverS,
    minGapS: o.vadMinGapS,
    minSpeechS: o.vadMinSpeechS,
  };
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

function measurePitch(ch: ChannelKernels, speech: Segment[], o: AcousticsOptions): PitchStats {
  const track = trackPitch(ch, speech, {
    minHz: o.pitchMinHz,
    maxHz: o.pitchMaxHz,
    windowS: o.pitchWindowS,
    hopS: o.pitchHopS,
    threshold: o.pitchThreshold,
    voicedMaxAperiodicity: o.pitchVoicedMaxAperiodicity,
  });
  return summarizePitch(track.f0Hz, track.speechFrames);
}

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
  const loudness = analyzeLoudness(channels, sampleRate, o);
  const signal = mixdown(channels, o.mixdown);
  const n = signal.length;
  const durationS = n / sampleRate;
  const ch = new ChannelKernels(signal, sampleRate);
  try {
    const speech = detectSpeechSegments(ch, activityParameters(o)).map(([s, e]) => [round6(s), round6(Math.min(e, durationS))] as Segment);
    const syllables = countSyllableNuclei(ch, speech, {
      intensityPitchFloorHz: o.syllableIntensityFloorHz,
      thresholdBelowPeakDb: o.syllableThresholdBelowPeakDb,
      minDipDb: o.syllableMinDipDb,
      voicingThreshold: o.syllableVoicingThreshold,
      voicingFloorHz: o.syllableVoicingFloorHz,
      voicingCeilingHz: o.syllableVoicingCeilingHz,
      minPauseS: o.syllableMinPauseS,
    });
    const words = transcript === undefined ? 0 : countWords(transcript);
    const clipLevel = Math.pow(10, o.clipLevelDbfs / 20);
    const stats = ch.stats(clipLevel, sampleRate <= 8000 ? o.clipMinRunNarrowbandSamples : o.clipMinRunSamples);
    const edge = measureBandEdgeHz(ch, speech, o.bandwidthFloorDb);
    const pitch = speech.length ? measurePitch(ch, speech, o) : { ...NULL_PITCH };
    const phonation = syllables.phonationTimeS;
    return {
      ...loudness,
      speech_ratio: durationS > 0 ? finite(totalDuration(speech) / durationS) : null,
      speech_segments: speech,
      pauses: computePauseStats(speech, durationS, o.minPauseS),
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
  } finally {
    ch.dispose();
  }
}

/** Overlap and talk balance of two parties' speech timelines (acoustics.md §2.4, §7.1). */
export interface OverlapStats {
  /** Time both parties speak at once (s). */
  overlap_s: number;
  /**
   * Talk-over events: a segment that starts strictly inside the other party's speech. `a_started`
   * counts a talking over b, `b_started` b over a; simultaneous starts count for neither.
   */
  talk_over_events: { a_started: number; b_started: number };
  /** Share of all speech time per party, a + b = 1; null when nobody speaks. */
  talk_ratio: { a: number | null; b: number | null };
  /** Share of the call (0…durationS) in which neither party speaks; null for a zero duration. */
  silence_share: number | null;
  /** Speech time of each party (s), overlapping segments of one party counted once. */
  a_speech_s: number;
  b_speech_s: number;
}

function normalizeTimeline(segments: ReadonlyArray<readonly [number, number]>, durationS: number): Segment[] {
  const sorted = segments
    .map(([s, e]) => [Math.max(0, s), Math.min(durationS, e)] as Segment)
    .filter(([s, e]) => e > s)
    .sort((x, y) => x[0] - y[0]);
  return mergeTouching(sorted);
}

function mergeTouching(sorted: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

function intersectionLength(a: Segment[], b: Segment[]): number {
  let i = 0, j = 0, total = 0;
  while (i < a.length && j < b.length) {
    total += Math.max(0, Math.min(a[i][1], b[j][1]) - Math.max(a[i][0], b[j][0]));
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return total;
}

function countStartsInside(starters: Segment[], other: Segment[]): number {
  let count = 0, j = 0;
  for (const [s] of starters) {
    while (j < other.length && other[j][1] <= s) j++;
    if (j < other.length && other[j][0] < s && s < other[j][1]) count++;
  }
  return count;
}

/** Overlap seconds, talk-over events by who started them, talk ratio and silence share of two timelines. */
export function measureOverlap(
  a: ReadonlyArray<readonly [number, number]>,
  b: ReadonlyArray<readonly [number, number]>,
  durationS: number,
): OverlapStats {
  if (!(durationS >= 0)) throw new RangeError(`durationS must be ≥ 0, got ${durationS}`);
  const ta = normalizeTimeline(a, durationS);
  const tb = normalizeTimeline(b, durationS);
  const aSpeech = totalDuration(ta), bSpeech = totalDuration(tb);
  const overlap = intersectionLength(ta, tb);
  const both = aSpeech + bSpeech;
  return {
    overlap_s: overlap,
    talk_over_events: { a_started: countStartsInside(ta, tb), b_started: countStartsInside(tb, ta) },
    talk_ratio: { a: both > 0 ? aSpeech / both : null, b: both > 0 ? bSpeech / both : null },
    silence_share: durationS > 0 ? Math.max(0, durationS - (aSpeech + bSpeech - overlap)) / durationS : null,
    a_speech_s: aSpeech,
    b_speech_s: bSpeech,
  };
}
