// The measurements of the voxmetrics profile that the standards set lacks (acoustics.md §5.1, §5.3): speech-only WADA-SNR, dropouts inside speech, repeated segments at any offset, truncated endings, clipped fraction, band edge.
//
// Everything here reads one clip's signal already in the arena (the standards set's mixdown) and
// the speech segments the standards set found, so a clip is decoded and segmented once.
import type { ChannelKernels, RepeatRun, RepeatScanOptions } from "../dsp/channel-kernels.js";
import { ZeroRunList } from "../dsp/integrity-stream.js";
import type { Segment } from "./acoustics-activity.js";
import { bandEdgeFromPower, planBandEdge, wadaSnrFromStatistic } from "./acoustics-quality.js";
import { percentile } from "./percentile.js";

/** Every option of the profile's measurements, with its unit and source; defaults in DEFAULT_INTEGRITY_OPTIONS. */
export interface IntegrityOptions {
  /**
   * Block of the level contour behind dropouts, truncation and the speech level (s).
   * @defaultValue 0.005
   */
  blockS: number;
  /**
   * Speech level: this percentile of the block levels inside speech segments (%). Source: ISIP's
   * frame-energy CDF rule (acoustics.md §5.2) uses the upper percentiles for the signal.
   * @defaultValue 90
   */
  speechLevelPercentile: number;
  /**
   * Noise floor: this percentile of all block levels (%), as acoustics.md §5.2's noise percentile.
   * @defaultValue 10
   */
  noiseFloorPercentile: number;
  /**
   * Speech-only WADA-SNR runs on the speech segments widened by this on each side (s): WADA needs
   * speech with its surrounding pauses (acoustics.md §5.1); exact zeros are left out.
   * @defaultValue 0.2
   */
  snrPadS: number;
  /**
   * A clip whose loudest blocks (the 95th percentile block level) stay below this is silent (dBFS):
   * no speech can be in it. A clip above it where the VAD finds no speech (speech buried in noise)
   * is measured over its whole length instead. −80 dBFS is well below any speech a listener hears
   * and above the noise of 16-bit PCM (≈ −96 dBFS).
   * @defaultValue -80
   */
  silenceLevelDb: number;
  /**
   * Shortest run of exact zeros taken as a candidate dropout (s). acoustics.md §5.3 says ≥ 20 ms; 2 ms
   * also catches single lost 20 ms frames that are partly concealed. Validation: no clean source
   * (human, TTS, espeak-ng) has such a run inside speech with loud edges.
   * @defaultValue 0.002
   */
  zeroRunMinS: number;
  /**
   * Edge window on each side of a zero run whose level decides whether the cut is abrupt (s).
   * @defaultValue 0.002
   */
  edgeS: number;
  /**
   * A gap or collapse is a dropout only when the blocks on both sides are within this of the
   * speech level (dB): it fell inside loud speech. Validation.
   * @defaultValue 15
   */
  edgeBelowSpeechDb: number;
  /**
   * A gap of digital silence is a cut only when the edge windows on both sides are within this of
   * the neighbouring blocks' level (dB): speech stopped mid-waveform. Word ends and plosive
   * closures of TTS decay to zero first (espeak-ng's last samples sit 30–50 dB below their block).
   * Validation: no clean human, TTS or espeak-ng clip has such a gap.
   * @defaultValue 10
   */
  edgeBelowLocalDb: number;
  /**
   * The near edge: the last samples before and the first after the gap (s).
   * @defaultValue 0.0005
   */
  nearEdgeS: number;
  /**
   * The near edge must be within this of the neighbouring blocks' level too (dB). Validation:
   * espeak-ng shifted up by 6–8 semitones keeps its decays only in the last half millisecond.
   * @defaultValue 20
   */
  nearEdgeBelowLocalDb: number;
  /**
   * Energy collapse: blocks at least this far below both neighbouring blocks (dB). Validation.
   * @defaultValue 40
   */
  collapseDb: number;
  /**
   * Shortest energy collapse counted as a dropout (s).
   * @defaultValue 0.01
   */
  collapseMinS: number;
  /**
   * Longest energy collapse counted as a dropout (s); longer quiet is a pause.
   * @defaultValue 0.25
   */
  collapseMaxS: number;
  /**
   * Truncation: the clip's last block is compared with the blocks of the `tailS` seconds before it (s).
   * @defaultValue 0.02
   */
  tailS: number;
  /**
   * Truncation: "no decay" — the last block is within this of the loudest block of the tailS before
   * it (dB). Validation: speech trimmed right after its natural end (espeak-ng, last sample ≥ −44
   * dBFS) has decayed by more than this within its last 20 ms; a mid-word cut has not.
   * @defaultValue 6
   */
  tailDecayDb: number;
  /**
   * Truncation: the last block is still speech when it is within this of the speech level (dB) …
   * @defaultValue 15
   */
  tailBelowSpeechDb: number;
  /**
   * … and at least this far above the noise floor (dB), so a noisy tail is not read as speech.
   * @defaultValue 10
   */
  tailAboveNoiseDb: number;
  /**
   * Repeats: shortest repeated segment sought (s); the 0.2 s.
   * @defaultValue 0.2
   */
  repeatMinS: number;
  /**
   * Repeats: longest repeated segment sought (s); the 0.6 s.
   * @defaultValue 0.6
   */
  repeatMaxS: number;
  /**
   * Repeats: hashed window (s).
   * @defaultValue 0.002
   */
  repeatWindowS: number;
  /**
   * Repeats: quantisation steps per speech RMS (the hash is level-invariant this way).
   * @defaultValue 32
   */
  repeatStepsPerRms: number;
  /**
   * Repeats: a window is hashed when its mean |q| reaches this (steps), ≈ 30 dB below the speech RMS.
   * @defaultValue 1
   */
  repeatGateSteps: number;
  /**
   * Repeats: verification block (s).
   * @defaultValue 0.005
   */
  repeatBlockS: number;
  /**
   * Repeats: a block matches when the difference energy is at most this fraction of its energy (−20 dB).
   * @defaultValue 0.01
   */
  repeatMatchRatio: number;
  /**
   * Repeats: a verified run counts when it covers at least this fraction of the lag.
   * @defaultValue 0.8
   */
  repeatMinRunFraction: number;
}

/** Defaults of the voxmetrics profile's integrity measurements (dropouts, repeats, truncation), each with its unit and source in docs/voxmetrics-profile.md. */
export const DEFAULT_INTEGRITY_OPTIONS: Readonly<IntegrityOptions> = Object.freeze({
  blockS: 0.005,
  speechLevelPercentile: 90,
  noiseFloorPercentile: 10,
  snrPadS: 0.2,
  silenceLevelDb: -80,
  zeroRunMinS: 0.002,
  edgeS: 0.002,
  edgeBelowSpeechDb: 15,
  edgeBelowLocalDb: 10,
  nearEdgeS: 0.0005,
  nearEdgeBelowLocalDb: 20,
  collapseDb: 40,
  collapseMinS: 0.01,
  collapseMaxS: 0.25,
  tailS: 0.02,
  tailDecayDb: 6,
  tailBelowSpeechDb: 15,
  tailAboveNoiseDb: 10,
  repeatMinS: 0.2,
  repeatMaxS: 0.6,
  repeatWindowS: 0.002,
  repeatStepsPerRms: 32,
  repeatGateSteps: 1,
  repeatBlockS: 0.005,
  repeatMatchRatio: 0.01,
  repeatMinRunFraction: 0.8,
} satisfies IntegrityOptions);

const RANGES: Record<keyof IntegrityOptions, [number, number]> = {
  blockS: [0.001, 0.05],
  speechLevelPercentile: [50, 100],
  noiseFloorPercentile: [0, 50],
  snrPadS: [0, 5],
  silenceLevelDb: [-200, 0],
  zeroRunMinS: [0.0001, 1],
  edgeS: [0.0001, 0.05],
  edgeBelowLocalDb: [0, 80],
  nearEdgeS: [0.0001, 0.05],
  nearEdgeBelowLocalDb: [0, 80],
  edgeBelowSpeechDb: [0, 80],
  collapseDb: [6, 120],
  collapseMinS: [0.001, 1],
  collapseMaxS: [0.005, 5],
  tailS: [0.005, 0.5],
  tailDecayDb: [0, 80],
  tailBelowSpeechDb: [0, 80],
  tailAboveNoiseDb: [0, 80],
  repeatMinS: [0.02, 5],
  repeatMaxS: [0.02, 5],
  repeatWindowS: [0.0005, 0.05],
  repeatStepsPerRms: [1, 10000],
  repeatGateSteps: [0, 10000],
  repeatBlockS: [0.001, 0.1],
  repeatMatchRatio: [0, 1],
  repeatMinRunFraction: [0.1, 1],
};

/** Defaults overlaid with `partial`; a RangeError names the field and its allowed range. */
export function resolveIntegrityOptions(partial: Partial<IntegrityOptions> = {}): IntegrityOptions {
  const o: IntegrityOptions = { ...DEFAULT_INTEGRITY_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof IntegrityOptions, unknown][]) {
    if (value === undefined) continue;
    if (!(key in RANGES)) throw new RangeError(`profile measurement option ${key} is unknown`);
    const [lo, hi] = RANGES[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < lo || value > hi) {
      throw new RangeError(`profile measurement option ${key} must be a number in [${lo}, ${hi}], got ${String(value)}`);
    }
    o[key] = value;
  }
  if (o.repeatMinS > o.repeatMaxS) throw new RangeError("profile measurement option repeatMinS must not exceed repeatMaxS");
  return o;
}

/** A stretch of the clip (s). */
export type Interval = [number, number];

/** What the profile adds per clip (plain data; seconds and dB; null when undefined). */
export interface IntegrityBlock {
  /** Σ speech segment durations the VAD found (s). */
  speech_s: number;
  /** Level of the loudest blocks (95th percentile, dB); −200 for digital silence. */
  peak_level_db: number | null;
  /** False when the loudest blocks stay below silenceLevelDb: nothing audible (a muted or empty turn). */
  audible: boolean;
  /** True when the VAD found no speech in an audible clip (speech buried in noise): the rest was measured over the whole clip. */
  whole_clip: boolean;
  /** Seconds the measurements below ran over: the VAD's speech, the whole clip when whole_clip, 0 when not audible. */
  measured_s: number;
  /** WADA-SNR over speech segments with exact zeros left out (dB); null without speech. */
  speech_snr_db: number | null;
  /** Speech level: the percentile of block levels inside speech (dB re full scale); null without speech. */
  speech_level_db: number | null;
  /** Noise floor: the low percentile of all block levels (dB). */
  noise_floor_db: number | null;
  /** Samples in clipping runs / samples in speech (0 without speech). */
  clipped_fraction: number;
  /** Highest frequency of the speech spectrum within the floor of its 300–3000 Hz level (Hz); null without speech. */
  band_edge_hz: number | null;
  /** Dropouts inside speech: digital-silence gaps and sudden energy collapses with loud edges. */
  dropouts: { count: number; total_s: number; events: Interval[] };
  /** Repeated segments (0.2–0.6 s by default): where the repeat starts, its lag and repeated length (s). */
  repeats: { count: number; repeated_s: number; events: Array<{ at_s: number; lag_s: number; length_s: number }> };
  /** Speech still active in the last frames with no decay. */
  truncated: boolean;
  /** Level of the clip's last block (dB). */
  tail_level_db: number | null;
}

/** Shortest partial last block that still counts as the clip's tail (s). */
/** Shortest partial last block that still counts as the clip's tail (s). */
const PARTIAL_TAIL_S = 0.0005;
/** Block level of digital silence is −200 dB (the kernels' floor); anything below this is silence. */
const DIGITAL_SILENCE_DB = -190;
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const round2 = (v: number) => Math.round(v * 100) / 100;

/** Energy mean of block levels (dB); a missing neighbour (clip edge) is left out. */
function meanLevelDb(a: number, b: number | undefined): number {
  if (b === undefined) return a;
  return 10 * Math.log10((Math.pow(10, a / 10) + Math.pow(10, b / 10)) / 2);
}

/** Merge overlapping or touching intervals (sorted by start). */
function mergeIntervals(list: Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/**
 * "Does some segment [s, e] hold t (s ≤ t ≤ e)?" for many t, in O(log n) each: the segments sorted
 * by start with the running maximum of their ends (a long recording has thousands of segments and
 * millions of blocks; the answer is the same as scanning every segment).
 */
class SegmentSet {
  private readonly starts: Float64Array;
  private readonly maxEnds: Float64Array;

  constructor(segments: readonly Segment[]) {
    const sorted = [...segments].sort((a, b) => a[0] - b[0]);
    this.starts = Float64Array.from(sorted, (s) => s[0]);
    this.maxEnds = new Float64Array(sorted.length);
    let max = -Infinity;
    sorted.forEach(([, e], i) => (this.maxEnds[i] = max = Math.max(max, e)));
  }

  has(t: number): boolean {
    // The last segment starting at or before t; among those, the furthest end.
    let lo = 0, hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.maxEnds[lo - 1] >= t;
  }
}

/** Up to this many values a percentile sorts a copy; beyond, it selects the ranks by radix, without a copy. */
const SMALL_SELECTION = 65536;

/** Order-preserving unsigned key of an f32's bit pattern (negative values flipped, positive ones offset). */
function orderKey(bits: number): number {
  return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
}

/** The value of an orderKey. */
function valueOfKey(key: number, scratch: { u32: Uint32Array; f32: Float32Array }): number {
  scratch.u32[0] = key & 0x80000000 ? (key & 0x7fffffff) >>> 0 : ~key >>> 0;
  return scratch.f32[0];
}

/**
 * percentile(sorted(levels[b] for b in the runs), p), exactly, where `runs` lists block ranges
 * [from, to) as pairs (ascending, not overlapping; null: every block): a sorted copy for few
 * values, else the two ranks selected by a two-level radix over the f32 bit patterns (no copy of a
 * long recording's levels).
 */
export function percentileOfLevels(levels: Float32Array, p: number, runs: Int32Array | null = null): number | null {
  const spans = runs ?? Int32Array.of(0, levels.length);
  let n = 0;
  for (let i = 0; i < spans.length; i += 2) n += spans[i + 1] - spans[i];
  if (n === 0) return null;
  if (n <= SMALL_SELECTION) {
    const values: number[] = [];
    for (let i = 0; i < spans.length; i += 2) for (let b = spans[i]; b < spans[i + 1]; b++) values.push(levels[b]);
    return percentile(values.sort((a, b) => a - b), p);
  }
  const r = ((n - 1) * p) / 100;
  const lo = Math.floor(r), hi = Math.ceil(r);
  const bits = new Uint32Array(levels.buffer, levels.byteOffset, levels.length);
  const u32 = new Uint32Array(1);
  const scratch = { u32, f32: new Float32Array(u32.buffer) };
  const select = (rank: number): number => {
    const counts = new Uint32Array(65536);
    for (let i = 0; i < spans.length; i += 2) for (let b = spans[i]; b < spans[i + 1]; b++) counts[orderKey(bits[b]) >>> 16]++;
    let high = 0, below = 0;
    while (below + counts[high] <= rank) below += counts[high++];
    counts.fill(0);
    for (let i = 0; i < spans.length; i += 2) {
      for (let b = spans[i]; b < spans[i + 1]; b++) {
        const key = orderKey(bits[b]);
        if (key >>> 16 === high) counts[key & 0xffff]++;
      }
    }
    let low = 0;
    while (below + counts[low] <= rank) below += counts[low++];
    return valueOfKey(((high << 16) | low) >>> 0, scratch);
  };
  const vlo = select(lo);
  const vhi = hi === lo ? vlo : select(hi);
  return vlo + (r - lo) * (vhi - vlo);
}

/** The blocks whose centres ((b + 0.5) · block / fs) lie in a speech segment, as ascending [from, to) pairs. */
function blockRunsInside(set: SegmentSet, blocks: number, blockS: number): Int32Array {
  const out: number[] = [];
  let from = -1;
  for (let b = 0; b < blocks; b++) {
    const inside = set.has((b + 0.5) * blockS);
    if (inside && from < 0) from = b;
    else if (!inside && from >= 0) {
      out.push(from, b);
      from = -1;
    }
  }
  if (from >= 0) out.push(from, blocks);
  return Int32Array.from(out);
}

/** The clipping rule of the standards set the integrity block shares. */
export interface IntegrityClipping {
  level: number;
  minRun: number;
  bandwidthFloorDb: number;
}

/** Sample lengths of the profile's measurements at a sample rate. */
export interface IntegrityLengths {
  /** Block of the level contour. */
  block: number;
  /** Shortest zero run. */
  minRun: number;
  /** Edge windows of the zero runs: the wider one and the near one. */
  edge: number;
  nearEdge: number;
}

/** The lengths (samples) of the blocks and runs measureIntegrity uses at `sampleRate`. */
export function integrityLengths(o: IntegrityOptions, sampleRate: number): IntegrityLengths {
  const fs = sampleRate;
  return {
    block: Math.max(1, Math.round(o.blockS * fs)),
    minRun: Math.max(1, Math.round(o.zeroRunMinS * fs)),
    edge: Math.max(1, Math.round(o.edgeS * fs)),
    nearEdge: Math.max(1, Math.round(o.nearEdgeS * fs)),
  };
}

/** What the profile reads from the signal in a first pass (nothing of it depends on the levels). */
export interface IntegrityFirstPass {
  /** Block levels (integrityLengths().block), the last block partial. */
  levels: Float32Array;
  /** Samples in clipping runs (the standards set's rule). */
  clippedSamples: number;
  /** Zero runs with the wider edge windows, and the same runs with the near edge windows (both empty when there is none), in compact form. */
  zeroRuns: ZeroRunList;
  nearEdges: ZeroRunList;
}

/** What the second pass reads: only what needs the speech level or the final speech stretches; null for what is not needed. */
export interface IntegrityPlan {
  /** Sample ranges of the speech-only WADA sums. */
  wadaRanges: Interval[] | null;
  /** The repeated-segment scan. */
  repeats: RepeatScanOptions | null;
  /** Spectrum frames of the band edge. */
  band: { fftSize: number; starts: Int32Array } | null;
}

/** The second pass's results, for the plan's non-null entries. */
export interface IntegritySecondPass {
  wadaSums: { count: number; sumAbs: number; sumLn: number } | null;
  repeats: RepeatRun[] | null;
  /** Summed power spectra (spectrumAccumulate) of the band-edge frames. */
  bandPower: Float64Array | null;
}

/** The levels-derived part of the measurement, known after the first pass (opaque to callers: planIntegrity makes it, finishIntegrity reads it). */
export interface IntegrityContext {
  n: number;
  fs: number;
  durationS: number;
  speechS: number;
  block: number;
  peakLevel: number | null;
  audible: boolean;
  wholeClip: boolean;
  speech: readonly Segment[];
  speechSet: SegmentSet;
  speechSamples: number;
  speechLevel: number | null;
  noiseFloor: number | null;
  /** FFT size of the band-edge frames (0 when there are none). */
  bandFftSize: number;
}

/**
 * The first pass's levels turned into the speech level and noise floor, and the plan of the second
 * pass: `n` samples at `sampleRate`, `vadSpeech` the standards set's speech segments (s).
 */
export function planIntegrity(n: number, sampleRate: number, first: IntegrityFirstPass, vadSpeech: readonly Segment[], o: IntegrityOptions): { context: IntegrityContext; plan: IntegrityPlan } {
  const fs = sampleRate;
  const durationS = n / fs;
  const speechS = vadSpeech.reduce((s, [a, b]) => s + (b - a), 0);
  const { block } = integrityLengths(o, fs);
  const levels = first.levels;

  // Level contour: speech level from blocks inside speech, noise floor from all blocks.
  const peakLevel = percentileOfLevels(levels, 95);
  const audible = peakLevel !== null && peakLevel >= o.silenceLevelDb;
  const wholeClip = audible && vadSpeech.length === 0;
  const speech: readonly Segment[] = wholeClip ? [[0, durationS]] : audible ? vadSpeech : [];
  const speechSet = new SegmentSet(speech);
  const speechRanges = speech.map(([s, e]) => [Math.round(s * fs), Math.min(n, Math.round(e * fs))] as [number, number]);
  const speechSamples = speechRanges.reduce((s, [a, b]) => s + Math.max(0, b - a), 0);
  const speechLevel = percentileOfLevels(levels, o.speechLevelPercentile, blockRunsInside(speechSet, levels.length, block / fs));
  const noiseFloor = percentileOfLevels(levels, o.noiseFloorPercentile);

  // Speech-only WADA-SNR: speech segments, exact zeros excluded (Kim & Stern 2008).
  const pad = Math.round(o.snrPadS * fs);
  const padded = mergeIntervals(speechRanges.map(([a, b]) => [Math.max(0, a - pad), Math.min(n, b + pad)] as Interval));

  // Repeats, with a quantisation step relative to the speech level so the hash is level-invariant.
  let repeats: RepeatScanOptions | null = null;
  if (speechLevel !== null && speechLevel > -150) {
    const rms = Math.pow(10, speechLevel / 20);
    const window = Math.max(4, Math.round(o.repeatWindowS * fs));
    const minLag = Math.max(1, Math.round(o.repeatMinS * fs));
    const maxLag = Math.max(minLag, Math.round(o.repeatMaxS * fs));
    repeats = {
      window,
      scale: o.repeatStepsPerRms / rms,
      gate: Math.round(o.repeatGateSteps * window),
      minLag,
      maxLag,
      blockLength: Math.max(1, Math.round(o.repeatBlockS * fs)),
      matchRatio: o.repeatMatchRatio,
      minRunFraction: o.repeatMinRunFraction,
      tableBits: Math.min(24, Math.max(10, Math.ceil(Math.log2(4 * maxLag)))),
    };
  }
  const band = speechSamples > 0 ? planBandEdge(n, fs, speech as Segment[]) : null;
  return {
    context: { n, fs, durationS, speechS, block, peakLevel, audible, wholeClip, speech, speechSet, speechSamples, speechLevel, noiseFloor, bandFftSize: band ? band.fftSize : 0 },
    plan: { wadaRanges: speechSamples > 0 ? padded : null, repeats, band },
  };
}

/** The profile block from both passes' results. */
export function finishIntegrity(context: IntegrityContext, first: IntegrityFirstPass, second: IntegritySecondPass, o: IntegrityOptions, clip: IntegrityClipping): IntegrityBlock {
  const { n, fs, durationS, speechS, block, peakLevel, audible, wholeClip, speech, speechSet, speechSamples, speechLevel, noiseFloor } = context;
  const levels = first.levels;

  const sums = second.wadaSums ?? { count: 0, sumAbs: 0, sumLn: 0 };
  const snr = sums.count > 0 && sums.sumAbs > 0 ? wadaSnrFromStatistic(Math.log(sums.sumAbs / sums.count) - sums.sumLn / sums.count) : null;

  const clipped = speechSamples > 0 ? Math.min(1, first.clippedSamples / speechSamples) : 0;

  const events: Interval[] = [];
  if (speechLevel !== null) {
    const loud = speechLevel - o.edgeBelowSpeechDb;
    // Digital-silence gaps cut into loud speech: on both sides the few samples next to the gap keep
    // the level of the block around them (a word end or plosive closure decays to zero first).
    // Two edge scales: the wider window keeps the level of its block, and so do the last few
    // samples (a decay that a pitch shift or resampling compressed into a millisecond still fails).
    const zeroRuns = first.zeroRuns;
    const nearEdges = first.nearEdges;
    for (let k = 0; k < zeroRuns.length; k++) {
      const start = zeroRuns.start(k), end = zeroRuns.end(k);
      if (start === 0 || end >= n) continue;
      // Local level: the energy mean of the block holding the edge and its outer neighbour.
      const localBefore = meanLevelDb(levels[Math.floor((start - 1) / block)], levels[Math.floor((start - 1) / block) - 1]);
      const localAfter = meanLevelDb(levels[Math.floor(end / block)], levels[Math.floor(end / block) + 1]);
      const abrupt =
        zeroRuns.beforeDb(k) >= localBefore - o.edgeBelowLocalDb && zeroRuns.afterDb(k) >= localAfter - o.edgeBelowLocalDb &&
        nearEdges.beforeDb(k) >= localBefore - o.nearEdgeBelowLocalDb && nearEdges.afterDb(k) >= localAfter - o.nearEdgeBelowLocalDb;
      if (abrupt && localBefore >= loud && localAfter >= loud) events.push([start / fs, end / fs]);
    }
    // Sudden energy collapses: a run of blocks far below the loud blocks right next to it on both
    // sides, at least collapseMinS long (a plosive closure of TTS ramps through its edge blocks).
    const maxBlocks = Math.max(1, Math.round(o.collapseMaxS / (block / fs)));
    const minBlocks = Math.max(1, Math.round(o.collapseMinS / (block / fs)));
    for (let b = 1; b < levels.length - 1; b++) {
      const before = levels[b - 1];
      if (before < loud || levels[b] > before - o.collapseDb) continue;
      let e = b;
      while (e < levels.length && e - b < maxBlocks && levels[e] <= before - o.collapseDb) e++;
      if (e >= levels.length || e - b >= maxBlocks || e - b < minBlocks) { b = e; continue; }
      const after = levels[e];
      let quiet = -Infinity, floor = Infinity;
      for (let k = b; k < e; k++) {
        quiet = Math.max(quiet, levels[k]);
        floor = Math.min(floor, levels[k]);
      }
      // Gaps that reach digital silence are judged sample by sample above (a filtered gap keeps its
      // zeros inside and rings at its edges); this catches collapses to a floor that is not zero.
      if (floor > DIGITAL_SILENCE_DB && after >= loud && quiet <= after - o.collapseDb) events.push([(b * block) / fs, (e * block) / fs]);
      b = e;
    }
  }
  const dropouts = mergeIntervals(events).filter(([s, e]) => speechSet.has((s + e) / 2));

  const repeats: IntegrityBlock["repeats"]["events"] = [];
  for (const r of second.repeats ?? []) {
    if (speechSet.has(r.start / fs)) repeats.push({ at_s: round6(r.start / fs), lag_s: round6(r.lag / fs), length_s: round6(r.run / fs) });
  }

  // Truncation: the last speech segment reaches the end, and the last block (a partial one counts
  // from half a millisecond on: the very last samples are what a cut leaves) is still at speech
  // level, with no decay over the tail before it.
  const tailBlocks = Math.max(1, Math.round(o.tailS / (block / fs)));
  const last = n % block !== 0 && n % block < Math.min(block, Math.ceil(PARTIAL_TAIL_S * fs)) ? levels.length - 2 : levels.length - 1;
  const tailLevel = last >= 0 ? levels[last] : null;
  let tailPeak = -Infinity;
  for (let b = Math.max(0, last - tailBlocks); b < last; b++) tailPeak = Math.max(tailPeak, levels[b]);
  const lastSpeechEnd = speech.length ? speech[speech.length - 1][1] : -1;
  const truncated =
    speechLevel !== null && noiseFloor !== null && tailLevel !== null &&
    !wholeClip && lastSpeechEnd >= durationS - 2 * o.tailS &&
    tailLevel >= speechLevel - o.tailBelowSpeechDb && tailLevel >= noiseFloor + o.tailAboveNoiseDb &&
    tailLevel >= tailPeak - o.tailDecayDb;

  const edge = second.bandPower ? bandEdgeFromPower(second.bandPower, fs, context.bandFftSize, clip.bandwidthFloorDb) : null;
  return {
    speech_s: round6(speechS),
    peak_level_db: peakLevel === null ? null : round2(peakLevel),
    audible,
    whole_clip: wholeClip,
    measured_s: round6(speechSamples / fs),
    speech_snr_db: snr === null ? null : round2(snr),
    speech_level_db: speechLevel === null ? null : round2(speechLevel),
    noise_floor_db: noiseFloor === null ? null : round2(noiseFloor),
    clipped_fraction: round6(clipped),
    band_edge_hz: edge,
    dropouts: { count: dropouts.length, total_s: round6(dropouts.reduce((s, [a, b]) => s + b - a, 0)), events: dropouts.map(([a, b]) => [round6(a), round6(b)]) },
    repeats: { count: repeats.length, repeated_s: round6(repeats.reduce((s, r) => s + r.length_s, 0)), events: repeats },
    truncated,
    tail_level_db: tailLevel === null ? null : round2(tailLevel),
  };
}

/**
 * The profile block of one clip: `ch` is the signal the standards set measured, `speech` its
 * speech segments (s), `clipLevel` and `clipMinRun` the standards set's clipping rule.
 * (measureIntegrityStream in integrity-stream.ts measures the same from a PcmSource.)
 */
export function measureIntegrity(ch: ChannelKernels, vadSpeech: readonly Segment[], o: IntegrityOptions, clip: IntegrityClipping): IntegrityBlock {
  const lengths = integrityLengths(o, ch.sampleRate);
  const zeroRuns = ZeroRunList.of(ch.zeroRuns(lengths.minRun, lengths.edge));
  const first: IntegrityFirstPass = {
    levels: ch.blockLevels(lengths.block),
    clippedSamples: ch.stats(clip.level, clip.minRun).clippedSamples,
    zeroRuns,
    nearEdges: zeroRuns.length ? ZeroRunList.of(ch.zeroRuns(lengths.minRun, lengths.nearEdge)) : new ZeroRunList(),
  };
  const { context, plan } = planIntegrity(ch.length, ch.sampleRate, first, vadSpeech, o);
  const second: IntegritySecondPass = {
    wadaSums: plan.wadaRanges ? ch.wadaSums(plan.wadaRanges) : null,
    repeats: plan.repeats ? ch.repeats(plan.repeats) : null,
    bandPower: plan.band ? ch.spectrum(plan.band.starts, plan.band.fftSize).power : null,
  };
  return finishIntegrity(context, first, second, o, clip);
}
