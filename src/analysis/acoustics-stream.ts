// The standards set of a recording read from a PcmSource in bounded chunks (issue 11): the same blocks measureAcoustics / measureLoudness give on the whole clip.
//
// Two passes over the source at most, every signal (the mixdown and, per channel, each channel)
// measured in the same pass:
//   pass 1 — loudness and true peak (all channels together, and each channel alone), activity
//            levels, signal stats (DC, WADA-SNR sums, clipping runs) and the intensity contour;
//   pass 2 — only what is measured inside the speech segments found from pass 1: YIN frames of the
//            syllable voicing check and of the F0 track (on the low-passed, decimated signal) and
//            the spectrum frames of the band edge. Skipped when no signal has such frames.
// Memory: each pass runs in one arena session whose regions are allocated before the first chunk
// and reused for every chunk (one read chunk, one filter block per IIR stream, one loudness chunk,
// sliding frame buffers), so the arena does not grow with the recording's length. What does grow
// is the compact per-frame summaries kept on the JS side: activity levels (4 bytes per 10 ms per
// signal), the intensity contour (4 bytes per 16 ms; both kept at their exact length when the
// source knows its length, not in a doubling buffer copied at the end), the loudness energies (16
// bytes per 100 ms), and in pass 2 the F0 frames inside speech (12 bytes per 10 ms of speech). The
// speech decision copies one signal's levels into a short session of its own and selects the peak
// percentile in place in the spent JS copy, so that session holds the levels plus one noise-floor
// window (≈ 4 bytes per 10 ms; it held a selection copy of every level before, 22.1 MB of
// WebAssembly memory for 4 h of 24 kHz mono, now 6.1 MB).
import type { PcmSource } from "../audio/pcm-source.js";
import {
  ActivityStream, DecimateStream, IntensityStream, readPlanarChunks, SpectrumStream, speechRunsOfLevels, StatsStream, STREAM_CHUNK_FRAMES, YinStream,
  type PlanarChunk,
} from "../dsp/channel-stream.js";
import type { SignalStats } from "../dsp/channel-kernels.js";
import { LOUDNESS_CHUNK_FRAMES, LoudnessStreamAt } from "../dsp/loudness.js";
import { withArena, type Arena } from "../dsp/wasm.js";
import { speechRunOptions, type Segment } from "./acoustics-activity.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "./acoustics-options.js";
import { finishPitch, NULL_PITCH, planPitch, type PitchPlan, type PitchStats } from "./acoustics-pitch.js";
import { bandEdgeFromPower, planBandEdge } from "./acoustics-quality.js";
import { finishSyllables, planSyllables, syllableIntensityShape, type SyllablePlan } from "./acoustics-syllables.js";
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

/** What pass 1 leaves of one signal. */
interface Pass1 {
  levels: Float32Array;
  stats: SignalStats;
  intensity: Float32Array;
}

/** What one signal still needs from pass 2, and its results. */
interface Signal2 {
  of: SignalOf;
  speech: Segment[];
  syllables: SyllablePlan;
  pitch: PitchPlan | null;
  band: { fftSize: number; starts: Int32Array } | null;
  voicingYin?: YinStream;
  pitchYin?: YinStream;
  spectrum?: SpectrumStream;
}

function signalPtr(chunk: PlanarChunk, of: SignalOf): number {
  return of.mean ? chunk.mean() : chunk.channel(of.channel);
}

/**
 * The standards set (or its loudness subset) of a recording read from `source` chunk by chunk, equal
 * to measureAcoustics / measureLoudness on the whole decoded clip (what `analyze` writes as
 * `acoustics` and `channels_acoustics`): integer and array fields equal, numbers equal (the kernels
 * see the same blocks and frames). Reads the source at most twice; the arena holds bounded buffers
 * plus one signal's speech decision, the JS side only per-frame summaries (see the module comment).
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
  const mainSignal: SignalOf = channels === 1 || o.mixdown === "first" ? { mean: false, channel: 0 } : { mean: true };
  const signals: SignalOf[] = [mainSignal, ...(perChannel ? Array.from({ length: channels }, (_, c) => ({ mean: false, channel: c }) as SignalOf) : [])];
  const standards = what.set === "standards";

  // Pass 1: loudness of all channels (and each alone), activity levels, stats, intensity contour.
  const shape = syllableIntensityShape(o, sampleRate);
  const clip = clippingCriteria(o, sampleRate);
  // A source that knows its length lets the per-frame summaries be kept at their exact size (no copy at the end).
  const expected = source.frames !== null && Number.isInteger(source.frames) && source.frames > 0 ? source.frames : 0;
  const pass1 = withArena((arena) => {
    const loudnessBuffer = arena.allocF32(LOUDNESS_CHUNK_FRAMES * channels);
    const meters = [new LoudnessStreamAt(arena, channels, sampleRate, meterOptions(o, channels))];
    if (perChannel) for (let c = 0; c < channels; c++) meters.push(new LoudnessStreamAt(arena, 1, sampleRate, meterOptions(o, 1)));
    let loudnessBuffered = 0;
    const flushLoudness = () => {
      meters[0].push(loudnessBuffer, loudnessBuffered, LOUDNESS_CHUNK_FRAMES);
      for (let c = 1; c < meters.length; c++) meters[c].push(loudnessBuffer + 4 * (c - 1) * LOUDNESS_CHUNK_FRAMES, loudnessBuffered, LOUDNESS_CHUNK_FRAMES);
      loudnessBuffered = 0;
    };
    const y = standards ? arena.alloc(ActivityStream.yBytes(arena)) : 0;
    const streams = standards
      ? signals.map(() => ({
        activity: new ActivityStream(arena, sampleRate, y, expected),
        stats: new StatsStream(arena, clip.level, clip.minRun),
        intensity: new IntensityStream(arena, shape.windowLength, shape.step, shape.beta, STREAM_CHUNK_FRAMES, expected),
      }))
      : [];
    const all = Array.from({ length: channels }, (_, c) => c);
    const frames = readPlanarChunks(arena, source, all, standards && mainSignal.mean, (chunk) => {
      for (let at = 0; at < chunk.frames;) {
        const n = Math.min(chunk.frames - at, LOUDNESS_CHUNK_FRAMES - loudnessBuffered);
        for (let c = 0; c < channels; c++) moveInArena(arena, loudnessBuffer + 4 * (c * LOUDNESS_CHUNK_FRAMES + loudnessBuffered), chunk.channel(c) + 4 * at, n);
        loudnessBuffered += n;
        at += n;
        if (loudnessBuffered === LOUDNESS_CHUNK_FRAMES) flushLoudness();
      }
      streams.forEach((s, i) => {
        const ptr = signalPtr(chunk, signals[i]);
        s.activity.push(ptr, chunk.frames);
        s.stats.push(ptr, chunk.frames);
        s.intensity.push(ptr, chunk.frames);
      });
    });
    if (loudnessBuffered > 0) flushLoudness();
    return {
      frames,
      loudness: meters.map((m) => toLoudnessBlock(m.result())),
      signals: streams.map((s): Pass1 => ({ levels: s.activity.finish(), stats: s.stats.finish(), intensity: s.intensity.finish() })),
    };
  });
  if (!standards) {
    return perChannel ? { acoustics: pass1.loudness[0], channels: pass1.loudness.slice(1) } : { acoustics: pass1.loudness[0] };
  }

  // Speech segments from the levels (one short session per signal), then the frames measured inside them.
  const n = pass1.frames;
  const durationS = n / sampleRate;
  const runOptions = speechRunOptions(o);
  const planned: Signal2[] = signals.map((of, i) => {
    const { levels, intensity } = pass1.signals[i];
    const speech = speechSegmentsOfRuns(withArena((arena) => speechRunsOfLevels(arena, levels, runOptions)), o, durationS);
    const syllables = planSyllables(intensity, speech, o, sampleRate);
    // The per-frame summaries of pass 1 are not needed past this point.
    pass1.signals[i].levels = pass1.signals[i].intensity = new Float32Array(0);
    return {
      of,
      speech,
      syllables,
      pitch: speech.length ? planPitch(n, sampleRate, speech, o) : null,
      band: planBandEdge(n, sampleRate, speech),
    };
  });
  const needs = planned.filter((s) => s.syllables.voicing || (s.pitch && s.pitch.starts.length) || s.band);
  if (needs.length) secondPass(source, n, needs);

  const blocks = planned.map((s, i): AcousticsBlock => {
    const syllables = finishSyllables(s.syllables, s.voicingYin ? s.voicingYin.aperiodicity : null);
    let pitch: PitchStats = { ...NULL_PITCH };
    if (s.pitch) pitch = s.pitchYin ? finishPitch(s.pitch, s.pitchYin.period, s.pitchYin.aperiodicity, o) : finishPitch(s.pitch, new Float32Array(0), new Float32Array(0), o);
    const edgeHz = s.band && s.spectrum ? bandEdgeFromPower(s.spectrum.power64(), sampleRate, s.band.fftSize, o.bandwidthFloorDb) : null;
    const parts = { frames: n, sampleRate, speech: s.speech, syllables, stats: pass1.signals[i].stats, edgeHz, pitch, minPauseS: o.minPauseS };
    return assembleAcoustics(pass1.loudness[i], parts, i === 0 ? what.transcript : undefined);
  });
  return perChannel ? { acoustics: blocks[0], channels: blocks.slice(1) } : { acoustics: blocks[0] };
}

/** Copy `n` f32 inside the arena (the dsp layer's move, through a view). */
function moveInArena(arena: Arena, to: number, from: number, n: number): void {
  if (n > 0) arena.f32(to, n).set(arena.f32(from, n));
}

/** Pass 2: YIN and spectrum frames inside speech, for the signals that have any; results land in the Signal2 objects. */
function secondPass(source: PcmSource, frames: number, signals: Signal2[]): void {
  const { sampleRate } = source;
  withArena((arena) => {
    const block = arena.k.yinDecimateBlockLength();
    const perSignal = signals.map((s) => {
      const consumers: Array<(ptr: number, n: number) => void> = [];
      // One decimator per distinct (cutoff, factor): the syllable check and the F0 track share it when they agree.
      const decimators = new Map<string, { stream: DecimateStream; sinks: YinStream[] }>();
      const yinOn = (cutoffHz: number, factor: number, starts: Int32Array, window: number, tauMin: number, tauMax: number, threshold: number): YinStream => {
        const key = `${cutoffHz}/${factor}`;
        let d = decimators.get(key);
        if (!d) {
          const sinks: YinStream[] = [];
          d = { stream: new DecimateStream(arena, sampleRate, cutoffHz, factor, (ptr, n) => { for (const y of sinks) y.push(ptr, n); }), sinks };
          decimators.set(key, d);
        }
        const yin = new YinStream(arena, starts, window, tauMin, tauMax, threshold, Math.ceil(frames / factor), Math.ceil(block / factor) + 1);
        d.sinks.push(yin);
        return yin;
      };
      const v = s.syllables.voicing;
      if (v) s.voicingYin = yinOn(v.cutoffHz, v.factor, v.starts, v.window, v.tauMin, v.tauMax, v.threshold);
      const p = s.pitch;
      if (p && p.starts.length) s.pitchYin = yinOn(p.cutoffHz, p.factor, p.starts, p.window, p.tauMin, p.tauMax, p.threshold);
      if (s.band) s.spectrum = new SpectrumStream(arena, s.band.starts, s.band.fftSize, frames, STREAM_CHUNK_FRAMES);
      for (const d of decimators.values()) consumers.push((ptr, n) => d.stream.push(ptr, n));
      const spectrum = s.spectrum;
      if (spectrum) consumers.push((ptr, n) => spectrum.push(ptr, n));
      return { consumers, finish: () => { for (const d of decimators.values()) d.stream.finish(); } };
    });
    const wanted = [...new Set(signals.flatMap((s) => (s.of.mean ? [] : [s.of.channel])))];
    const needMean = signals.some((s) => s.of.mean);
    const read = readPlanarChunks(arena, source, wanted.length ? wanted : [0], needMean, (chunk) => {
      signals.forEach((s, i) => {
        const ptr = signalPtr(chunk, s.of);
        for (const consume of perSignal[i].consumers) consume(ptr, chunk.frames);
      });
    });
    if (read !== frames) throw new RangeError(`the source gave ${read} frames on its second reading, ${frames} on its first`);
    for (const s of perSignal) s.finish();
  });
}
