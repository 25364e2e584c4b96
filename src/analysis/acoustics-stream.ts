// The standards set of a recording read from a PcmSource in bounded chunks (issue 11): the same blocks measureAcoustics / measureLoudness give on the whole clip.
//
// The loudness set reads the source once (every meter in the same reading). The standards set
// measures one signal after another — the mixdown (with the loudness of all channels together),
// then, per channel, each channel alone — in at most two readings per signal:
//   reading 1 — the signal's loudness and true peak, activity levels, signal stats (DC, WADA-SNR
//               sums, clipping runs) and the intensity contour;
//   reading 2 — only what is measured inside the speech segments found from reading 1: YIN frames
//               of the syllable voicing check and of the F0 track (on the low-passed, decimated
//               signal) and the spectrum frames of the band edge. Skipped when there are none.
// So only one signal's per-frame summaries are held at a time: a stereo recording is read six
// times instead of twice, for about the same CPU time (the kernels' work is the same; only the
// reading and de-interleaving are repeated).
// Memory: each reading runs in one arena session whose regions are allocated before the first
// chunk and reused for every chunk (one read chunk, one filter block per IIR stream, one loudness
// chunk, sliding frame buffers), so the arena does not grow with the recording's length. What does
// grow is the compact per-frame summaries of the signal being measured, on the JS side: activity
// levels (4 bytes per 10 ms) and the intensity contour (4 bytes per 16 ms), both kept at their
// exact length when the source knows its length, in the arrays the previous signal used; the
// loudness energies (16 bytes per 100 ms, in blocks passed from meter to meter); in reading 2 the
// F0 track's voiced periods (4 bytes per voiced 10 ms, in the spent levels' array; the frame starts
// are made as they are read, the percentiles selected without a sorted copy). The speech decision
// runs on the host on the levels where they are (speechRunsInPlace: no copy into WebAssembly
// memory, the peak's order statistics counted on the levels' bits), so they are held once.
import type { PcmSource } from "../audio/pcm-source.js";
import {
  ActivityStream, DecimateStream, F32List, IntensityStream, moveInMemory, readPlanarChunks, SpectrumStream, speechRunsInPlace, StatsStream, STREAM_CHUNK_FRAMES, YinFrameStream,
  type PlanarChunk,
} from "../dsp/channel-stream.js";
import type { SignalStats } from "../dsp/channel-kernels.js";
import { EnergyBlockPool, LOUDNESS_CHUNK_FRAMES, LoudnessStreamAt } from "../dsp/loudness.js";
import { withArena, type Arena } from "../dsp/wasm.js";
import { speechRunOptions, type Segment } from "./acoustics-activity.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "./acoustics-options.js";
import { finishPitchVoiced, NULL_PITCH, planPitch, type PitchPlan, type PitchStats } from "./acoustics-pitch.js";
import { bandEdgeFromPower, planBandEdge } from "./acoustics-quality.js";
import { ContourPeaks, finishSyllables, planSyllables, planSyllablesFromPeaks, syllableIntensityShape, type SyllablePlan } from "./acoustics-syllables.js";
import {
  assembleAcoustics, clippingCriteria, meterOptions, speechSegmentsOfRuns, toLoudnessBlock, validateSampleRate,
  type AcousticsBlock, type LoudnessBlock,
} from "./acoustics.js";

/** What measureStandardsStream measures. */
export interface StandardsStreamRequest {
  /** `loudness`: the loudness block only (one pass); `standards`: the whole acoustics block. */
  set: "loudness" | "standards";
  /** Also measure each channel alone (only when the source has several channels). */
  perChannel: boolean;
  /** The recording's words: enables words_per_minute of the mixdown's block. */
  transcript?: string;
}

/** The blocks of one recording: the mixdown's (loudness over all channels), and each channel's when asked for. */
export interface StandardsStreamResult {
  acoustics: AcousticsBlock | LoudnessBlock;
  channels?: Array<AcousticsBlock | LoudnessBlock>;
}

/** One signal of the per-channel measures: the per-sample mean of the channels, or one channel. */
type SignalOf = { mean: true } | { mean: false; channel: number };

/** What one signal's first reading leaves. */
interface Pass1 {
  frames: number;
  loudness: LoudnessBlock;
  levels: Float32Array;
  stats: SignalStats;
  /** The intensity contour (empty when `contour` took it). */
  intensity: Float32Array;
  /** The contour's peaks and top values, when the source knew its length. */
  contour: ContourPeaks | null;
}

/** What one signal still needs from its second reading, and its results. */
interface Signal2 {
  of: SignalOf;
  syllables: SyllablePlan;
  pitch: PitchPlan | null;
  band: { fftSize: number; starts: Int32Array } | null;
  /** Syllable candidates found voiced (their YIN frames' aperiodicity at most the threshold), counted as the frames are measured. */
  voiced?: number;
  /** YIN periods of the F0 track's voiced frames, in frame order. */
  voicedPeriods?: F32List;
  spectrum?: SpectrumStream;
}

function signalPtr(chunk: PlanarChunk, of: SignalOf): number {
  return of.mean ? chunk.mean() : chunk.channel(of.channel);
}

/**
 * The standards set (or its loudness subset) of a recording read from `source` chunk by chunk, equal
 * to measureAcoustics / measureLoudness on the whole decoded clip (what `analyze` writes as
 * `acoustics` and `channels_acoustics`): integer and array fields equal, numbers equal (the kernels
 * see the same blocks and frames). The loudness set reads the source once; the standards set reads
 * it at most twice per signal measured (the mixdown, then each channel when asked for), so the
 * per-frame summaries of one signal only are held at a time. The arena holds bounded buffers only,
 * the JS side per-frame summaries (see the module comment).
 * Opens its own arena sessions (not to be called inside one).
 *
 * @example
 * const { acoustics, channels } = measureStandardsStream(memoryPcmSource(decoded), resolveAcousticsOptions(), { set: "standards", perChannel: true });
 */
export function measureStandardsStream(source: PcmSource, options: Partial<AcousticsOptions>, what: StandardsStreamRequest): StandardsStreamResult {
  const o = resolveAcousticsOptions(options);
  const { sampleRate, channels } = source;
  validateSampleRate(sampleRate);
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channels must be an integer ≥ 1, got ${channels}`);
  if (what.set !== "loudness" && what.set !== "standards") throw new RangeError(`set must be "loudness" or "standards", got ${String(what.set)}`);
  const perChannel = what.perChannel && channels > 1;
  const all = Array.from({ length: channels }, (_, c) => c);

  if (what.set === "loudness") {
    // One reading: the meter of all channels together and, per channel, each channel's.
    const meters = [{ channels: all }, ...(perChannel ? all.map((c) => ({ channels: [c] })) : [])];
    const loudness = withArena((arena) => {
      const feed = new MeterFeed(arena, sampleRate, o, all, meters);
      readPlanarChunks(arena, source, all, false, (chunk) => feed.push(chunk));
      return feed.finish();
    });
    return perChannel ? { acoustics: loudness[0], channels: loudness.slice(1) } : { acoustics: loudness[0] };
  }

  // The standards set: one signal after another (the mixdown, with the loudness of all channels; then each channel alone).
  const mainSignal: SignalOf = channels === 1 || o.mixdown === "first" ? { mean: false, channel: 0 } : { mean: true };
  const signals: SignalOf[] = [mainSignal, ...(perChannel ? all.map((c) => ({ mean: false, channel: c }) as SignalOf) : [])];
  let frames: number | null = null;
  let readings = 0;
  const checkLength = (read: number): number => {
    readings++;
    if (frames === null) frames = read;
    else if (read !== frames) throw new RangeError(`the source gave ${read} frames on its ${ordinal(readings)} reading, ${frames} on its first`);
    return read;
  };
  // The arrays of one signal's levels and contour, once spent, hold the next signal's (the F0 track's voiced periods and their sorted copy in between).
  const spent: Spent = { energyBlocks: new EnergyBlockPool() };
  const blocks = signals.map((of, i) => {
    const metered = i === 0 ? all : [(of as { channel: number }).channel];
    const pass1 = firstReading(source, o, of, metered, checkLength, spent);
    return finishSignal(source, o, of, pass1, checkLength, i === 0 ? what.transcript : undefined, spent);
  });
  return perChannel ? { acoustics: blocks[0], channels: blocks.slice(1) } : { acoustics: blocks[0] };
}

/** A finished signal's arrays of levels and intensity contour, free for the next signal (all signals of a recording have the same length). */
interface Spent {
  levels?: Float32Array;
  intensity?: Float32Array;
  /** The loudness energies' blocks. */
  energyBlocks: EnergyBlockPool;
  /** The previous signal's syllable peaks (their storage). */
  contour?: ContourPeaks;
}

/** 1st, 2nd, 3rd, … spelled as the error message says them. */
function ordinal(k: number): string {
  const words = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return k < words.length ? words[k] : `${k}th`;
}

/**
 * Loudness meters fed a reading's chunks: every meter reads planar copies of its channels (`metered`
 * lists the channels copied, each meter a subset of them) cut into exactly LOUDNESS_CHUNK_FRAMES
 * frames, as measureLoudnessAt cuts the whole programme.
 */
class MeterFeed {
  private readonly buffer: number;
  private readonly meters: Array<{ meter: LoudnessStreamAt; first: number }>;
  private buffered = 0;

  constructor(private readonly arena: Arena, sampleRate: number, o: AcousticsOptions, private readonly metered: number[], meters: Array<{ channels: number[] }>, pool?: EnergyBlockPool) {
    this.buffer = arena.allocF32(LOUDNESS_CHUNK_FRAMES * metered.length);
    this.meters = meters.map((m) => {
      const first = metered.indexOf(m.channels[0]);
      if (first < 0 || m.channels.some((c, j) => metered[first + j] !== c)) throw new RangeError("a meter's channels must be consecutive among the metered ones");
      return { meter: new LoudnessStreamAt(arena, m.channels.length, sampleRate, meterOptions(o, m.channels.length), pool), first };
    });
  }

  push(chunk: PlanarChunk): void {
    const { arena, buffer, metered } = this;
    for (let at = 0; at < chunk.frames;) {
      const n = Math.min(chunk.frames - at, LOUDNESS_CHUNK_FRAMES - this.buffered);
      for (let j = 0; j < metered.length; j++) moveInArena(arena, buffer + 4 * (j * LOUDNESS_CHUNK_FRAMES + this.buffered), chunk.channel(metered[j]) + 4 * at, n);
      this.buffered += n;
      at += n;
      if (this.buffered === LOUDNESS_CHUNK_FRAMES) this.flush();
    }
  }

  private flush(): void {
    for (const { meter, first } of this.meters) meter.push(this.buffer + 4 * first * LOUDNESS_CHUNK_FRAMES, this.buffered, LOUDNESS_CHUNK_FRAMES);
    this.buffered = 0;
  }

  /** The loudness blocks, in the order of the meters. */
  finish(): LoudnessBlock[] {
    if (this.buffered > 0) this.flush();
    return this.meters.map(({ meter }) => {
      const block = toLoudnessBlock(meter.result());
      meter.release();
      return block;
    });
  }
}

/** A signal's first reading: the loudness of the `metered` channels, activity levels, signal stats and the intensity contour. */
function firstReading(source: PcmSource, o: AcousticsOptions, of: SignalOf, metered: number[], checkLength: (read: number) => number, spent: Spent): Pass1 {
  const { sampleRate } = source;
  const shape = syllableIntensityShape(o, sampleRate);
  const clip = clippingCriteria(o, sampleRate);
  // A source that knows its length lets the per-frame summaries be kept at their exact size (no copy at the end).
  const expected = source.frames !== null && Number.isInteger(source.frames) && source.frames > 0 ? source.frames : 0;
  return withArena((arena) => {
    const feed = new MeterFeed(arena, sampleRate, o, metered, [{ channels: metered }], spent.energyBlocks);
    const y = arena.alloc(ActivityStream.yBytes(arena));
    const activity = new ActivityStream(arena, sampleRate, y, expected, spent.levels);
    const stats = new StatsStream(arena, clip.level, clip.minRun);
    // With the length known, the contour goes straight to its peak finder (nothing of it is kept); else it is kept whole.
    const contour = expected > 0 ? new ContourPeaks(o.syllableMinDipDb, arena.k.syllableFrameCount(expected, shape.windowLength, shape.step), spent.contour) : null;
    const intensity = new IntensityStream(arena, shape.windowLength, shape.step, shape.beta, STREAM_CHUNK_FRAMES, expected, spent.intensity,
      contour ? (values, from, count) => contour.pushRange(values, from, count) : undefined);
    spent.levels = spent.intensity = spent.contour = undefined;
    const wanted = of.mean ? metered : [...new Set([...metered, of.channel])];
    const frames = readPlanarChunks(arena, source, wanted, of.mean, (chunk) => {
      feed.push(chunk);
      const ptr = signalPtr(chunk, of);
      activity.push(ptr, chunk.frames);
      stats.push(ptr, chunk.frames);
      intensity.push(ptr, chunk.frames);
    });
    checkLength(frames);
    return { frames, loudness: feed.finish()[0], levels: activity.finish(), stats: stats.finish(), intensity: intensity.finish(), contour };
  });
}

/** Speech segments from the levels (decided in place), the frames measured inside them (a second reading when there are any), and the signal's block. */
function finishSignal(source: PcmSource, o: AcousticsOptions, of: SignalOf, pass1: Pass1, checkLength: (read: number) => number, transcript: string | undefined,
  spent: Spent): AcousticsBlock {
  const { sampleRate } = source;
  const n = pass1.frames;
  const durationS = n / sampleRate;
  // The levels are spent once the speech is decided; their array, and the contour's when it was kept, are reused below and by the next signal.
  const { levels, intensity } = pass1;
  pass1.levels = pass1.intensity = new Float32Array(0);
  const speech = speechSegmentsOfRuns(speechRunsInPlace(levels, speechRunOptions(o)), o, durationS);
  const syllables = pass1.contour ? planSyllablesFromPeaks(pass1.contour, speech, o, sampleRate) : planSyllables(intensity, speech, o, sampleRate);
  if (pass1.contour) spent.contour = pass1.contour;
  pass1.contour = null;
  const s: Signal2 = { of, syllables, pitch: speech.length ? planPitch(n, sampleRate, speech, o) : null, band: planBandEdge(n, sampleRate, speech) };
  if (s.syllables.voicing || (s.pitch && s.pitch.frames) || s.band) checkLength(secondReading(source, n, s, levels));

  const syllableResult = finishSyllables(s.syllables, s.voiced ?? 0);
  let pitch: PitchStats = { ...NULL_PITCH };
  if (s.pitch) pitch = finishPitchVoiced(s.pitch, s.voicedPeriods ? s.voicedPeriods.parts() : []);
  s.voicedPeriods = undefined;
  spent.levels = levels;
  if (intensity.length) spent.intensity = intensity;
  const edgeHz = s.band && s.spectrum ? bandEdgeFromPower(s.spectrum.power64(), sampleRate, s.band.fftSize, o.bandwidthFloorDb) : null;
  const parts = { frames: n, sampleRate, speech, syllables: syllableResult, stats: pass1.stats, edgeHz, pitch, minPauseS: o.minPauseS };
  return assembleAcoustics(pass1.loudness, parts, transcript);
}

/** Copy `n` f32 inside the arena (the dsp layer's move; the regions never overlap here). */
function moveInArena(arena: Arena, to: number, from: number, n: number): void {
  moveInMemory(arena, to, from, n);
}

/**
 * A signal's second reading: YIN and spectrum frames inside its speech; results land in `s`. The
 * F0 track's voiced periods go into `spare` (spent levels) when it has room for every frame. Returns the frames read.
 */
function secondReading(source: PcmSource, frames: number, s: Signal2, spare: Float32Array): number {
  const { sampleRate } = source;
  return withArena((arena) => {
    const block = arena.k.yinDecimateBlockLength();
    const consumers: Array<(ptr: number, n: number) => void> = [];
    const counts: Array<() => void> = [];
    // One decimator per distinct (cutoff, factor): the syllable check and the F0 track share it when they agree.
    const decimators = new Map<string, { stream: DecimateStream; sinks: Array<{ push(ptr: number, n: number): void }> }>();
    const decimated = (cutoffHz: number, factor: number) => {
      const key = `${cutoffHz}/${factor}`;
      let d = decimators.get(key);
      if (!d) {
        const sinks: Array<{ push(ptr: number, n: number): void }> = [];
        d = { stream: new DecimateStream(arena, sampleRate, cutoffHz, factor, (ptr, n) => { for (const y of sinks) y.push(ptr, n); }), sinks };
        decimators.set(key, d);
      }
      return { sinks: d.sinks, total: Math.ceil(frames / factor), maxPush: Math.ceil(block / factor) + 1 };
    };
    const v = s.syllables.voicing;
    if (v) {
      const d = decimated(v.cutoffHz, v.factor);
      // Only the count of voiced candidates is kept (not a period and an aperiodicity per candidate). Frames that do not fit
      // are never measured: the whole-clip kernel gives them aperiodicity 1, voiced when the threshold is at least 1.
      let voiced = 0, measured = 0;
      d.sinks.push(new YinFrameStream(arena, v.starts, v.window, v.tauMin, v.tauMax, v.threshold, d.total, d.maxPush, (memory, _period, aperiodicity, count) => {
        for (let i = 0; i < count; i++) if (memory[aperiodicity + i] <= v.threshold) voiced++;
        measured += count;
      }));
      counts.push(() => { s.voiced = voiced + (1 <= v.threshold ? v.starts.length - measured : 0); });
    }
    const p = s.pitch;
    if (p && p.frames) {
      const d = decimated(p.cutoffHz, p.factor);
      const voiced = (s.voicedPeriods = p.frames <= spare.length ? new F32List(spare.length, spare) : new F32List());
      d.sinks.push(new YinFrameStream(arena, p.starts(), p.window, p.tauMin, p.tauMax, p.threshold, d.total, d.maxPush, (memory, period, aperiodicity, count) => {
        for (let i = 0; i < count; i++) if (p.voiced(memory[period + i], memory[aperiodicity + i])) voiced.push(memory[period + i]);
      }));
    }
    if (s.band) s.spectrum = new SpectrumStream(arena, s.band.starts, s.band.fftSize, frames, STREAM_CHUNK_FRAMES);
    for (const d of decimators.values()) consumers.push((ptr, n) => d.stream.push(ptr, n));
    const spectrum = s.spectrum;
    if (spectrum) consumers.push((ptr, n) => spectrum.push(ptr, n));
    const read = readPlanarChunks(arena, source, s.of.mean ? [0] : [s.of.channel], s.of.mean, (chunk) => {
      const ptr = signalPtr(chunk, s.of);
      for (const consume of consumers) consume(ptr, chunk.frames);
    });
    for (const d of decimators.values()) d.stream.finish();
    for (const count of counts) count();
    return read;
  });
}
