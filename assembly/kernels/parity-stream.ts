// The parity kernels fed incrementally: deepeval's int16 mono mix pushed piece by piece, with every partial 20 ms frame, 40 ms pitch frame and 250 ms loop window carried between pushes (voice-metrics.md §3.2–3.7).
//
// A state block in the arena holds everything a clip's parity measurement needs between pushes:
// the exact running Σx², clipped and crossing counts with the sign of the last sample
// (frameStatsStepI16's accumulator), one carry buffer per frame width for the samples of a frame
// not yet complete, the first and the last 20 ms edge samples, and the pitch scratch. A push reads
// whole frames in place from the pushed samples and copies only what is left over into the carry
// buffers, so pushing a whole clip at once is the whole-clip path (src/dsp/parity.ts does exactly
// that). Each frame goes through the same step function as the whole-clip kernels (frameStatsStepI16,
// pitchFrameI16, loudWindowI16 + hashI16): the results are identical at any cut into pushes.
//
// Per-frame results leave through output regions the host names at each push (frame RMS f64, pitch
// f64, loud window start i32 + hash u64); the host keeps them as the compact summaries.
//
// Loop windows are confirmed sample by sample (§3.7 step 3) in a second reading of the clip:
// the host finds the windows whose hash is seen more than twice, and loopVerifyPush compares
// each of them with the first window of its group as the mono mix streams past again.
import { BAD_ARGUMENT, OK } from "../../src/dsp/kernel-status";
import { frameStatsStartI16, frameStatsStepI16, frameStatsTotals, frameSummaryStartF64, frameSummaryStepF64, frameSummaryWrite, rmsI16 } from "./frames";
import { pitchFrameI16, pitchFrameWidth, pitchScratchBytes } from "./pitch";
import { equalWindowsI16, hashI16, loudWindowI16 } from "./fingerprint";

const I32_MAX: i64 = 0x7fffffff;

// Layout of the state block (byte offsets; i32 unless noted). The host reads the counters
// (src/dsp/parity.ts PARITY_STREAM mirrors these offsets).
const S_RATE: usize = 0;
const S_FRAME_W: usize = 4;
const S_PITCH_W: usize = 8;
const S_LOOP_W: usize = 12;
const S_EDGE_W: usize = 16;
/** Samples pushed so far. */
const S_SAMPLES: usize = 20;
const S_FRAME_FILL: usize = 24;
const S_PITCH_FILL: usize = 28;
const S_LOOP_FILL: usize = 32;
const S_HEAD_FILL: usize = 36;
const S_TAIL_FILL: usize = 40;
/** Frame RMS values, pitches and loud windows written by the last push (or by finish). */
const S_OUT_FRAMES: usize = 44;
const S_OUT_PITCHES: usize = 48;
const S_OUT_WINDOWS: usize = 52;
/** Full loop windows seen so far (loud or not). */
const S_WINDOW_INDEX: usize = 56;
const S_FINISHED: usize = 60;
// Offsets (from the state) of the carry buffers and the pitch scratch.
const S_FRAME_BUF: usize = 64;
const S_PITCH_BUF: usize = 68;
const S_LOOP_BUF: usize = 72;
const S_HEAD_BUF: usize = 76;
const S_TAIL_BUF: usize = 80;
const S_SCRATCH: usize = 84;
/** frameStatsStepI16's 24-byte accumulator. */
const S_ACC: usize = 96;
/** frameSummaryStepF64's 32-byte accumulator (the counts of §3.3–3.5 over the frames so far). */
const S_SUMMARY: usize = 128;
const HEADER_BYTES: i32 = 160;

@inline function align16(bytes: i64): i64 {
  return (bytes + 15) & ~(<i64>15);
}

/** 20 ms frame: max(1, floor(sr·20/1000)). */
@inline function frameWidth(sampleRate: i32): i32 {
  return <i32>max<i64>(1, (<i64>sampleRate * 20) / 1000);
}

/** 250 ms loop window: max(1, trunc(sr·0.25)), the float product of the reference. */
@inline function loopWidth(sampleRate: i32): i32 {
  return max(1, <i32>(<f64>sampleRate * 0.25));
}

/** 20 ms edge window: max(1, trunc(sr·0.02)), the float product of the reference. */
@inline function edgeWidth(sampleRate: i32): i32 {
  return max(1, <i32>(<f64>sampleRate * 0.02));
}

/** Bytes of the state block for `sampleRate` (16-byte aligned), or BAD_ARGUMENT. */
export function parityStreamStateBytes(sampleRate: i32): i32 {
  if (sampleRate < 1) return BAD_ARGUMENT;
  const bytes =
    <i64>HEADER_BYTES +
    align16(<i64>frameWidth(sampleRate) << 1) +
    align16(<i64>pitchFrameWidth(sampleRate) << 1) +
    align16(<i64>loopWidth(sampleRate) << 1) +
    2 * align16(<i64>edgeWidth(sampleRate) << 1) +
    <i64>pitchScratchBytes();
  return bytes > I32_MAX ? BAD_ARGUMENT : <i32>bytes;
}

/** Starts a stream at `state` (16-byte aligned, parityStreamStateBytes bytes) for int16 mono at `sampleRate`. */
export function parityStreamInit(state: usize, sampleRate: i32): i32 {
  if (sampleRate < 1 || (state & 15) != 0 || parityStreamStateBytes(sampleRate) < 0) return BAD_ARGUMENT;
  memory.fill(state, 0, <usize>HEADER_BYTES);
  const frameW = frameWidth(sampleRate);
  const pitchW = pitchFrameWidth(sampleRate);
  const loopW = loopWidth(sampleRate);
  const edgeW = edgeWidth(sampleRate);
  store<i32>(state + S_RATE, sampleRate);
  store<i32>(state + S_FRAME_W, frameW);
  store<i32>(state + S_PITCH_W, pitchW);
  store<i32>(state + S_LOOP_W, loopW);
  store<i32>(state + S_EDGE_W, edgeW);
  let at = <i64>HEADER_BYTES;
  store<i32>(state + S_FRAME_BUF, <i32>at);
  at += align16(<i64>frameW << 1);
  store<i32>(state + S_PITCH_BUF, <i32>at);
  at += align16(<i64>pitchW << 1);
  store<i32>(state + S_LOOP_BUF, <i32>at);
  at += align16(<i64>loopW << 1);
  store<i32>(state + S_HEAD_BUF, <i32>at);
  at += align16(<i64>edgeW << 1);
  store<i32>(state + S_TAIL_BUF, <i32>at);
  at += align16(<i64>edgeW << 1);
  store<i32>(state + S_SCRATCH, <i32>at);
  frameStatsStartI16(state + S_ACC, 0);
  frameSummaryStartF64(state + S_SUMMARY);
  return OK;
}

@inline function buffer(state: usize, field: usize): usize {
  return state + <usize>load<i32>(state + field);
}

/**
 * Feeds `n` int16 mono samples at `mono` to the stream at `state`. Every 20 ms frame completed
 * writes its RMS (f64) at `outRms`, every 40 ms pitch frame its pitch (f64 Hz, 0.0 = none) at
 * `outPitch`, every full 250 ms window with RMS ≥ 300 its first sample index (i32) at `outStart`
 * and its hash (u64) at `outHash`; how many of each is left in the state (S_OUT_*). The regions
 * must hold floor((w − 1 + n) / w) values for the widths w = 20 ms, 40 ms and 250 ms. Returns OK,
 * or BAD_ARGUMENT (negative n, a finished stream, more than 2^31 − 1 samples in all).
 */
export function parityStreamPush(state: usize, mono: usize, n: i32, outRms: usize, outPitch: usize, outStart: usize, outHash: usize): i32 {
  if (n < 0 || load<i32>(state + S_FINISHED) != 0) return BAD_ARGUMENT;
  const samples = load<i32>(state + S_SAMPLES);
  if (<i64>samples + <i64>n > I32_MAX) return BAD_ARGUMENT;
  const acc = state + S_ACC;
  if (samples == 0 && n > 0) frameStatsStartI16(acc, <i32>load<i16>(mono));
  store<i32>(state + S_OUT_FRAMES, pushFrames(state, mono, n, outRms));
  store<i32>(state + S_OUT_PITCHES, pushPitches(state, mono, n, outPitch));
  store<i32>(state + S_OUT_WINDOWS, pushWindows(state, mono, n, outStart, outHash));
  pushEdges(state, mono, n);
  store<i32>(state + S_SAMPLES, samples + n);
  return OK;
}

/** 20 ms frames: the carried partial frame completed first, then whole frames in place, the rest carried. */
function pushFrames(state: usize, mono: usize, n: i32, outRms: usize): i32 {
  const w = load<i32>(state + S_FRAME_W);
  const buf = buffer(state, S_FRAME_BUF);
  const acc = state + S_ACC;
  let fill = load<i32>(state + S_FRAME_FILL);
  let p = mono;
  let rest = n;
  let out = 0;
  if (fill > 0) {
    const take = min(w - fill, rest);
    memory.copy(buf + (<usize>fill << 1), p, <usize>take << 1);
    fill += take;
    p += <usize>take << 1;
    rest -= take;
    if (fill == w) {
      store<f64>(outRms, frameDone(state, frameStatsStepI16(buf, w, acc)));
      out++;
      fill = 0;
    }
  }
  for (; rest >= w; rest -= w, p += <usize>w << 1, out++) store<f64>(outRms + (<usize>out << 3), frameDone(state, frameStatsStepI16(p, w, acc)));
  if (rest > 0) {
    memory.copy(buf, p, <usize>rest << 1);
    fill = rest;
  }
  store<i32>(state + S_FRAME_FILL, fill);
  return out;
}

/** A frame's RMS `r` added to the summary counts; returns `r`. */
@inline function frameDone(state: usize, r: f64): f64 {
  frameSummaryStepF64(state + S_SUMMARY, r);
  return r;
}

/** 40 ms pitch frames, carried like the 20 ms frames. */
function pushPitches(state: usize, mono: usize, n: i32, outPitch: usize): i32 {
  const w = load<i32>(state + S_PITCH_W);
  const sampleRate = load<i32>(state + S_RATE);
  const buf = buffer(state, S_PITCH_BUF);
  const scratch = buffer(state, S_SCRATCH);
  let fill = load<i32>(state + S_PITCH_FILL);
  let p = mono;
  let rest = n;
  let out = 0;
  if (fill > 0) {
    const take = min(w - fill, rest);
    memory.copy(buf + (<usize>fill << 1), p, <usize>take << 1);
    fill += take;
    p += <usize>take << 1;
    rest -= take;
    if (fill == w) {
      store<f64>(outPitch, pitchFrameI16(buf, w, sampleRate, scratch));
      out++;
      fill = 0;
    }
  }
  for (; rest >= w; rest -= w, p += <usize>w << 1, out++) store<f64>(outPitch + (<usize>out << 3), pitchFrameI16(p, w, sampleRate, scratch));
  if (rest > 0) {
    memory.copy(buf, p, <usize>rest << 1);
    fill = rest;
  }
  store<i32>(state + S_PITCH_FILL, fill);
  return out;
}

/** 250 ms loop windows (full ones only), carried like the frames; loud ones are fingerprinted. */
function pushWindows(state: usize, mono: usize, n: i32, outStart: usize, outHash: usize): i32 {
  const w = load<i32>(state + S_LOOP_W);
  const buf = buffer(state, S_LOOP_BUF);
  let index = load<i32>(state + S_WINDOW_INDEX);
  let fill = load<i32>(state + S_LOOP_FILL);
  let p = mono;
  let rest = n;
  let out = 0;
  if (fill > 0) {
    const take = min(w - fill, rest);
    memory.copy(buf + (<usize>fill << 1), p, <usize>take << 1);
    fill += take;
    p += <usize>take << 1;
    rest -= take;
    if (fill == w) {
      out += fingerprintWindow(buf, w, index, outStart + (<usize>out << 2), outHash + (<usize>out << 3));
      index++;
      fill = 0;
    }
  }
  for (; rest >= w; rest -= w, p += <usize>w << 1, index++) {
    out += fingerprintWindow(p, w, index, outStart + (<usize>out << 2), outHash + (<usize>out << 3));
  }
  if (rest > 0) {
    memory.copy(buf, p, <usize>rest << 1);
    fill = rest;
  }
  store<i32>(state + S_LOOP_FILL, fill);
  store<i32>(state + S_WINDOW_INDEX, index);
  return out;
}

/** Writes the start and hash of window `index` when it is loud; returns 1 if written, else 0. */
@inline function fingerprintWindow(window: usize, w: i32, index: i32, outStart: usize, outHash: usize): i32 {
  if (!loudWindowI16(window, w)) return 0;
  store<i32>(outStart, index * w);
  store<u64>(outHash, hashI16(window, w));
  return 1;
}

/** Keeps the first and the last edge-width samples for startRms / endRms. */
function pushEdges(state: usize, mono: usize, n: i32): void {
  const edge = load<i32>(state + S_EDGE_W);
  const headFill = load<i32>(state + S_HEAD_FILL);
  if (headFill < edge) {
    const take = min(edge - headFill, n);
    memory.copy(buffer(state, S_HEAD_BUF) + (<usize>headFill << 1), mono, <usize>take << 1);
    store<i32>(state + S_HEAD_FILL, headFill + take);
  }
  const tail = buffer(state, S_TAIL_BUF);
  if (n >= edge) {
    memory.copy(tail, mono + (<usize>(n - edge) << 1), <usize>edge << 1);
    store<i32>(state + S_TAIL_FILL, edge);
    return;
  }
  const tailFill = load<i32>(state + S_TAIL_FILL);
  const keep = min(tailFill, edge - n);
  memory.copy(tail, tail + (<usize>(tailFill - keep) << 1), <usize>keep << 1);
  memory.copy(tail + (<usize>keep << 1), mono, <usize>n << 1);
  store<i32>(state + S_TAIL_FILL, keep + n);
}

/**
 * Ends the stream: the last partial 20 ms frame joins the totals (and writes its RMS at `outRms`
 * when it holds at least floor(w/2) samples, §3.2), the last partial pitch frame likewise writes
 * its pitch at `outPitch`, and the totals block of frameStatsI16 is written at `outTotals`. The
 * counts written are left in S_OUT_FRAMES / S_OUT_PITCHES (0 or 1). Returns OK or BAD_ARGUMENT.
 */
export function parityStreamFinish(state: usize, outRms: usize, outPitch: usize, outTotals: usize): i32 {
  if (load<i32>(state + S_FINISHED) != 0) return BAD_ARGUMENT;
  store<i32>(state + S_FINISHED, 1);
  const acc = state + S_ACC;
  const frameW = load<i32>(state + S_FRAME_W);
  const frameFill = load<i32>(state + S_FRAME_FILL);
  let frames = 0;
  if (frameFill > 0) {
    const rms = frameStatsStepI16(buffer(state, S_FRAME_BUF), frameFill, acc);
    if (frameFill >= (frameW >> 1)) {
      store<f64>(outRms, frameDone(state, rms));
      frames = 1;
    }
  }
  const pitchW = load<i32>(state + S_PITCH_W);
  const pitchFill = load<i32>(state + S_PITCH_FILL);
  let pitches = 0;
  if (pitchFill > 0 && pitchFill >= (pitchW >> 1)) {
    store<f64>(outPitch, pitchFrameI16(buffer(state, S_PITCH_BUF), pitchFill, load<i32>(state + S_RATE), buffer(state, S_SCRATCH)));
    pitches = 1;
  }
  store<i32>(state + S_OUT_FRAMES, frames);
  store<i32>(state + S_OUT_PITCHES, pitches);
  store<i32>(state + S_OUT_WINDOWS, 0);
  frameStatsTotals(acc, load<i32>(state + S_SAMPLES), outTotals);
  return OK;
}

/**
 * Writes the summary block of frameSummaryF64 at `outSummary` from the counts over every frame so
 * far, with the order statistics `speech` and `noise` that the caller selected from the frame RMS values.
 */
export function parityStreamSummary(state: usize, speech: f64, noise: f64, outSummary: usize): i32 {
  frameSummaryWrite(state + S_SUMMARY, speech, noise, outSummary);
  return OK;
}

/** RMS (§3.2) of the first (`which` = 0) or last (1) min(n, 20 ms edge) samples pushed; 0.0 before any. */
export function parityStreamEdgeRms(state: usize, which: i32): f64 {
  if (which == 0) return rmsI16(buffer(state, S_HEAD_BUF), load<i32>(state + S_HEAD_FILL));
  return rmsI16(buffer(state, S_TAIL_BUF), load<i32>(state + S_TAIL_FILL));
}

// ---- Loop windows confirmed in a second reading ----

// Layout of the verification state (i32 fields), then the carry buffer of one window.
const V_WIDTH: usize = 0;
const V_FILL: usize = 4;
const V_INDEX: usize = 8;
const V_CURSOR: usize = 12;
const V_COUNT: usize = 16;
const V_CHECKS: usize = 20;
const V_SLOTS: usize = 24;
const V_HEADER: i32 = 32;
/** A check is 4 i32: window index, slot, role (0: keep this window in the slot, 1: compare it with the slot), result (1 = identical). */
const CHECK_BYTES: usize = 16;

/** Bytes of the verification state for windows of `width` samples, or BAD_ARGUMENT. */
export function loopVerifyStateBytes(width: i32): i32 {
  if (width < 1) return BAD_ARGUMENT;
  const bytes = <i64>V_HEADER + align16(<i64>width << 1);
  return bytes > I32_MAX ? BAD_ARGUMENT : <i32>bytes;
}

/**
 * Starts a verification reading at `state`: `count` checks at `checks` (4 i32 each, in increasing
 * window order, each window once) against `slots` (window-sized int16 regions). Returns OK or BAD_ARGUMENT.
 */
export function loopVerifyInit(state: usize, width: i32, checks: usize, count: i32, slots: usize): i32 {
  if (width < 1 || count < 0) return BAD_ARGUMENT;
  memory.fill(state, 0, <usize>V_HEADER);
  store<i32>(state + V_WIDTH, width);
  store<i32>(state + V_COUNT, count);
  store<i32>(state + V_CHECKS, <i32>checks);
  store<i32>(state + V_SLOTS, <i32>slots);
  return OK;
}

/**
 * Feeds `n` mono samples to the verification reading: each full window with a check is kept in its
 * slot (role 0) or compared with it (role 1, result 1 when identical). Returns the checks still
 * to do (0: the rest of the clip need not be read), or BAD_ARGUMENT.
 */
export function loopVerifyPush(state: usize, mono: usize, n: i32): i32 {
  if (n < 0) return BAD_ARGUMENT;
  const w = load<i32>(state + V_WIDTH);
  const buf = state + <usize>V_HEADER;
  let fill = load<i32>(state + V_FILL);
  let index = load<i32>(state + V_INDEX);
  let p = mono;
  let rest = n;
  if (fill > 0) {
    const take = min(w - fill, rest);
    memory.copy(buf + (<usize>fill << 1), p, <usize>take << 1);
    fill += take;
    p += <usize>take << 1;
    rest -= take;
    if (fill == w) {
      verifyWindow(state, buf, w, index);
      index++;
      fill = 0;
    }
  }
  for (; rest >= w; rest -= w, p += <usize>w << 1, index++) verifyWindow(state, p, w, index);
  if (rest > 0) {
    memory.copy(buf, p, <usize>rest << 1);
    fill = rest;
  }
  store<i32>(state + V_FILL, fill);
  store<i32>(state + V_INDEX, index);
  return load<i32>(state + V_COUNT) - load<i32>(state + V_CURSOR);
}

@inline function verifyWindow(state: usize, window: usize, w: i32, index: i32): void {
  let cursor = load<i32>(state + V_CURSOR);
  const count = load<i32>(state + V_COUNT);
  const checks = <usize>load<i32>(state + V_CHECKS);
  if (cursor >= count) return;
  const check = checks + <usize>cursor * CHECK_BYTES;
  if (load<i32>(check) != index) return;
  const slot = <usize>load<i32>(state + V_SLOTS) + ((<usize>load<i32>(check, 4) * <usize>w) << 1);
  if (load<i32>(check, 8) == 0) memory.copy(slot, window, <usize>w << 1);
  else store<i32>(check, <i32>equalWindowsI16(slot, window, w), 12);
  store<i32>(state + V_CURSOR, cursor + 1);
}
