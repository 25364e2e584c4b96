// Typed wrapper of the parity kernels (frames, pitch, fingerprint): the raw material of deepeval's analyze_audio over int16 mono PCM (voice-metrics.md §3).
//
// One call copies the PCM into the arena once, runs every kernel over it and returns plain arrays and
// numbers; the arena is reset at the start of each call. Every per-frame and per-window loop runs in
// the kernels (a worker's V8 isolate would otherwise compile each of them again); this file only
// allocates, calls and reads results.
import { checkStatus, expectResult } from "./kernel-error.js";
import { pyMean, pyPstdev } from "./pynum.js";
import { withArena, type Arena } from "./wasm.js";

/** Byte offsets in the 24-byte totals block of frameStatsI16. */
export const FRAME_TOTALS = { bytes: 24, rms: 0, sumSquares: 8, clipped: 16, crossings: 20 } as const;

/** Byte offsets in the 40-byte summary block of frameSummaryF64 (two f64, then five i32). */
export const FRAME_SUMMARY = { bytes: 40, speech: 0, noise: 8, silent: 16, longest: 20, dropouts: 24, voiced: 28, quiet: 32 } as const;

/** Widths in samples of the windows of §3.2–3.7 at `sampleRate` (Hz). */
export interface ParityWidths {
  /** 20 ms analysis frame: max(1, floor(sr·20/1000)). */
  frame: number;
  /** 40 ms pitch frame: max(1, floor(sr·40/1000)). */
  pitchFrame: number;
  /** 250 ms loop window: max(1, trunc(sr·0.25)), float product as in the reference. */
  loopWindow: number;
  /** 20 ms edge window: max(1, trunc(sr·0.02)), float product as in the reference. */
  edge: number;
}

export function parityWidths(sampleRate: number): ParityWidths {
  return {
    frame: Math.max(1, Math.floor((sampleRate * 20) / 1000)),
    pitchFrame: Math.max(1, Math.floor((sampleRate * 40) / 1000)),
    loopWindow: Math.max(1, Math.trunc(sampleRate * 0.25)),
    edge: Math.max(1, Math.trunc(sampleRate * 0.02)),
  };
}

/** Raw parity results of one clip; RMS values are in int16 units. */
export interface ParityFrames {
  sampleCount: number;
  sampleRate: number;
  /** RMS of the whole clip (exact Σx², one rounding, sqrt). */
  rms: number;
  /** count(|x| ≥ 32760). */
  clippedCount: number;
  /** Sign changes between neighbouring samples (zero counts as non-negative). */
  zeroCrossings: number;
  /** Number of 20 ms frames (a last partial frame counts from half a frame, §3.2). */
  frameCount: number;
  /** Number of 20 ms frames with RMS < 300, and the longest run of consecutive ones. */
  silentFrameCount: number;
  longestSilentRun: number;
  /** dropout_events of §3.4. */
  dropoutEvents: number;
  /** Frames with RMS ≥ 300 (voiced) and with 0 < RMS < 300 (quiet), §3.5. */
  voicedFrameCount: number;
  quietFrameCount: number;
  /** sorted(voiced RMS)[trunc(0.75·(V − 1))] and sorted(quiet RMS)[trunc(0.25·(Q − 1))]; 0.0 when the list is empty. */
  speechRms: number;
  noiseRms: number;
  /** Number of 40 ms pitch frames, and of those with a pitch (> 0 Hz). */
  pitchFrameCount: number;
  voicedPitchCount: number;
  /** Python's statistics.mean of the voiced pitches (Hz); null when there are none. */
  pitchMeanHz: number | null;
  /** Python's statistics.pstdev of the voiced pitches (Hz); null when there are fewer than two. */
  pitchPstdevHz: number | null;
  /** loop_events of §3.7. */
  loopEvents: number;
  /** RMS of the first and last edge-window samples (the whole clip when shorter). */
  startRms: number;
  endRms: number;
}

/** ParityFrames with the per-frame values it summarises (the whole-clip path only, for checks against the reference twins). */
export interface ParityFrameValues extends ParityFrames {
  /** RMS of every 20 ms frame. */
  frameRms: Float64Array;
  /** Pitch of every 40 ms frame in Hz; 0 where the frame has none. */
  pitchHz: Float64Array;
  /** The pitches > 0 of pitchHz, in frame order. */
  voicedPitchHz: number[];
}

/** pitchMeanHz and pitchPstdevHz of ParityFrames from the count and moments of the voiced pitches. */
export function pitchSummary(moments: { count: number; mean(): number; pstdev(): number }): Pick<ParityFrames, "voicedPitchCount" | "pitchMeanHz" | "pitchPstdevHz"> {
  const n = moments.count;
  return { voicedPitchCount: n, pitchMeanHz: n > 0 ? moments.mean() : null, pitchPstdevHz: n >= 2 ? moments.pstdev() : null };
}

/** The frameSummaryF64 result block at `ptr`, decoded (views made now: call after the last allocation). */
export function readFrameSummary(arena: Arena, ptr: number): FrameSummary {
  const ints = arena.i32(ptr, FRAME_SUMMARY.bytes >> 2);
  const floats = arena.f64(ptr, 2);
  return {
    speech: floats[FRAME_SUMMARY.speech >> 3],
    noise: floats[FRAME_SUMMARY.noise >> 3],
    silent: ints[FRAME_SUMMARY.silent >> 2],
    longest: ints[FRAME_SUMMARY.longest >> 2],
    dropouts: ints[FRAME_SUMMARY.dropouts >> 2],
    voiced: ints[FRAME_SUMMARY.voiced >> 2],
    quiet: ints[FRAME_SUMMARY.quiet >> 2],
  };
}

/** What frameSummaryF64 computes over the frame RMS values (the 75th/25th order statistics in speech/noise). */
export interface FrameSummary {
  speech: number;
  noise: number;
  silent: number;
  longest: number;
  dropouts: number;
  voiced: number;
  quiet: number;
}

const MAX_SAMPLE_RATE = 0x7fffffff;

/** Run the parity kernels over `pcm` (int16 mono) in an arena session of its own. */
export function measureParityFrames(pcm: Int16Array, sampleRate: number): ParityFrames {
  return withArena((arena) => measureParityFramesAt(arena, arena.copyPcm(pcm), pcm.length, sampleRate));
}

/** measureParityFrames with the per-frame values (frame RMS, pitches) it summarises. */
export function measureParityFrameValues(pcm: Int16Array, sampleRate: number): ParityFrameValues {
  return withArena((arena) => measureAt(arena, arena.copyPcm(pcm), pcm.length, sampleRate, true));
}

/**
 * As measureParityFrames, for PCM already in the session's arena: `pcmPtr` holds `sampleCount`
 * int16 samples (a clip analysed in one session is copied in once, see ClipKernels). This is the
 * streaming path of parity-stream.ts with the whole clip as its one push: frames are read in place,
 * and loop windows are confirmed against the clip itself.
 */
export function measureParityFramesAt(arena: Arena, pcmPtr: number, sampleCount: number, sampleRate: number): ParityFrames {
  return measureAt(arena, pcmPtr, sampleCount, sampleRate, false);
}

function measureAt(arena: Arena, pcmPtr: number, sampleCount: number, sampleRate: number, withValues: false): ParityFrames;
function measureAt(arena: Arena, pcmPtr: number, sampleCount: number, sampleRate: number, withValues: true): ParityFrameValues;
function measureAt(arena: Arena, pcmPtr: number, sampleCount: number, sampleRate: number, withValues: boolean): ParityFrames | ParityFrameValues {
  checkSampleRate(sampleRate);
  const k = arena.k;
  const n = sampleCount;
  const widths = parityWidths(sampleRate);
  const frames = k.frameCount(n, widths.frame);
  const pitchFrames = k.frameCount(n, widths.pitchFrame);
  const windows = Math.floor(n / widths.loopWindow);
  const state = arena.alloc(checkStatus(k.parityStreamStateBytes(sampleRate), "parityStreamStateBytes"));
  const rmsPtr = arena.allocF64(frames);
  const totalsPtr = arena.alloc(FRAME_TOTALS.bytes);
  const summaryPtr = arena.alloc(FRAME_SUMMARY.bytes);
  const summaryScratchPtr = arena.allocF64(frames);
  const pitchPtr = arena.allocF64(pitchFrames);
  const voicedPitchPtr = arena.allocF64(pitchFrames);
  const startPtr = arena.allocI32(windows);
  const hashPtr = arena.alloc(windows * 8);

  checkStatus(k.parityStreamInit(state, sampleRate), "parityStreamInit");
  checkStatus(k.parityStreamPush(state, pcmPtr, n, rmsPtr, pitchPtr, startPtr, hashPtr), "parityStreamPush");
  const pushed = readStreamCounts(arena, state);
  checkStatus(k.parityStreamFinish(state, rmsPtr + 8 * pushed.frames, pitchPtr + 8 * pushed.pitches, totalsPtr), "parityStreamFinish");
  const finished = readStreamCounts(arena, state);
  expectResult(pushed.frames + finished.frames, frames, "parityStreamPush");
  expectResult(pushed.pitches + finished.pitches, pitchFrames, "parityStreamPush");
  const loud = pushed.windows;
  expectResult(k.frameSummaryF64(rmsPtr, frames, summaryScratchPtr, summaryPtr), frames, "frameSummaryF64");
  const voicedPitches = checkStatus(k.voicedPitchesF64(pitchPtr, pitchFrames, voicedPitchPtr), "voicedPitchesF64");
  const tablePtr = arena.alloc(k.loopTableBytes(loud));
  const loopEvents = checkStatus(k.loopEventsI16(pcmPtr, widths.loopWindow, startPtr, hashPtr, loud, tablePtr), "loopEventsI16");
  // Views only after the last allocation: memory.grow detaches earlier ones.
  const totals = arena.i32(totalsPtr, FRAME_TOTALS.bytes >> 2);
  const summary = readFrameSummary(arena, summaryPtr);
  const voiced = arena.f64(voicedPitchPtr, voicedPitches);
  const result: ParityFrames = {
    sampleCount: n,
    sampleRate,
    rms: arena.f64(totalsPtr + FRAME_TOTALS.rms, 1)[0],
    clippedCount: totals[FRAME_TOTALS.clipped >> 2],
    zeroCrossings: totals[FRAME_TOTALS.crossings >> 2],
    frameCount: frames,
    silentFrameCount: summary.silent,
    longestSilentRun: summary.longest,
    dropoutEvents: summary.dropouts,
    voicedFrameCount: summary.voiced,
    quietFrameCount: summary.quiet,
    speechRms: summary.speech,
    noiseRms: summary.noise,
    pitchFrameCount: pitchFrames,
    ...pitchSummary({ count: voicedPitches, mean: () => pyMean(voiced), pstdev: () => pyPstdev(voiced) }),
    loopEvents,
    startRms: k.parityStreamEdgeRms(state, 0),
    endRms: k.parityStreamEdgeRms(state, 1),
  };
  if (!withValues) return result;
  return { ...result, frameRms: arena.f64(rmsPtr, frames).slice(), pitchHz: arena.f64(pitchPtr, pitchFrames).slice(), voicedPitchHz: Array.from(voiced) };
}

/** Byte offsets of the counters in the state block of parityStreamPush (assembly/kernels/parity-stream.ts). */
export const PARITY_STREAM = { samples: 20, frameFill: 24, loopFill: 32, outFrames: 44, outPitches: 48, outWindows: 52 } as const;

/** What the last parityStreamPush (or parityStreamFinish) wrote, and the samples pushed so far. */
export interface ParityStreamCounts {
  samples: number;
  frames: number;
  pitches: number;
  windows: number;
}

/** The counters of the stream state at `state` (a fresh view: call right after the kernel). */
export function readStreamCounts(arena: Arena, state: number): ParityStreamCounts {
  const h = arena.i32(state, 16);
  return {
    samples: h[PARITY_STREAM.samples >> 2],
    frames: h[PARITY_STREAM.outFrames >> 2],
    pitches: h[PARITY_STREAM.outPitches >> 2],
    windows: h[PARITY_STREAM.outWindows >> 2],
  };
}

/** A RangeError unless `sampleRate` is an integer from 1 to 2^31 − 1 Hz. */
export function checkSampleRate(sampleRate: number): void {
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate > MAX_SAMPLE_RATE) {
    throw new RangeError(`sampleRate must be an integer from 1 to ${MAX_SAMPLE_RATE} Hz, got ${sampleRate}`);
  }
}
