// Parity frame kernels over int16 mono PCM: exact sums of squares, RMS, 20 ms frames, clipping, zero crossings (voice-metrics.md §3.2–3.3).
//
// deepeval sums squares of integers exactly and divides once, so every sum here is an integer
// accumulation (i64) and every RMS is sqrt of the correctly rounded quotient, like Python's int / int.
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

/** |x| ≥ this counts as clipped (§3.1); |−32768| = 32768 counts too. */
const CLIP_LEVEL: i32 = 32760;

const TWO_POW_53: u64 = 1 << 53;
const TWO_POW_54: u64 = 1 << 54;

/**
 * numerator / denominator correctly rounded to f64 (round half to even), as Python's int / int.
 * Below 2^53 both operands are exact doubles and one IEEE division is already correct. Above, the
 * integer quotient is extended bit by bit until it holds at least 55 bits, the remainder becomes a
 * sticky bit, and the single conversion to f64 rounds exactly once.
 */
export function quotientF64(numerator: u64, denominator: u64): f64 {
  if (numerator < TWO_POW_53) return <f64>numerator / <f64>denominator;
  let q = numerator / denominator;
  let r = numerator % denominator;
  let shift: i64 = 0;
  while (q < TWO_POW_54) {
    r <<= 1;
    q <<= 1;
    if (r >= denominator) {
      r -= denominator;
      q |= 1;
    }
    shift++;
  }
  const rounded = <f64>(q | <u64>(r != 0));
  return rounded * reinterpret<f64>((1023 - shift) << 52);
}

/** Exact Σ x² over `len` int16 samples at `ptr`. */
export function sumSquaresI16(ptr: usize, len: i32): i64 {
  let acc0 = i64x2.splat(0);
  let acc1 = i64x2.splat(0);
  let i = 0;
  for (; i + 8 <= len; i += 8) {
    const v = v128.load(ptr + (<usize>i << 1));
    // Each lane is a² + b² ∈ [0, 2^31]; 2^31 (two −32768s) wraps to a negative i32, so widen unsigned.
    const pairs = i32x4.dot_i16x8_s(v, v);
    acc0 = i64x2.add(acc0, i64x2.extend_low_i32x4_u(pairs));
    acc1 = i64x2.add(acc1, i64x2.extend_high_i32x4_u(pairs));
  }
  const acc = i64x2.add(acc0, acc1);
  let sum = i64x2.extract_lane(acc, 0) + i64x2.extract_lane(acc, 1);
  for (; i < len; i++) {
    const s = <i64>load<i16>(ptr + (<usize>i << 1));
    sum += s * s;
  }
  return sum;
}

/** RMS(seq) of §3.2: sqrt(exact Σ x² / len), one rounding before the root; 0.0 for an empty range. */
export function rmsI16(ptr: usize, len: i32): f64 {
  if (len <= 0) return 0.0;
  return Math.sqrt(quotientF64(<u64>sumSquaresI16(ptr, len), <u64>len));
}

/** Number of frames(width) of §3.2: whole frames plus a last partial one of at least floor(width / 2) samples. */
export function frameCount(len: i32, width: i32): i32 {
  if (len <= 0 || width < 1) return 0;
  const whole = len / width;
  const rest = len - whole * width;
  return whole + <i32>(rest > 0 && rest >= (width >> 1));
}

// Layout of the totals block written by frameStatsI16 (24 bytes).
const TOTAL_RMS: usize = 0;
const TOTAL_SUM_SQUARES: usize = 8;
const TOTAL_CLIPPED: usize = 16;
const TOTAL_CROSSINGS: usize = 20;

// Layout of the 24-byte running accumulator of frameStatsStepI16: exact Σx² so far (i64), clipped
// samples (i32), zero crossings (i32) and the sign bit of the last sample seen (i32, 0 or 1).
const ACC_SUM_SQUARES: usize = 0;
const ACC_CLIPPED: usize = 8;
const ACC_CROSSINGS: usize = 12;
const ACC_SIGN: usize = 16;
/** Bytes of the accumulator block of frameStatsStepI16. */
export const FRAME_ACC_BYTES: i32 = 24;

/** The accumulator frameStatsI16 runs its frames through (static memory, below the arena). */
const WHOLE_CLIP_ACC: usize = memory.data(24, 16);

/**
 * Starts the accumulator at `acc` for a clip whose first sample is `first`: zero sums, and the
 * first sample's sign as the previous sign (so the first sample is never a crossing).
 */
export function frameStatsStartI16(acc: usize, first: i32): void {
  store<i64>(acc + ACC_SUM_SQUARES, 0);
  store<i32>(acc + ACC_CLIPPED, 0);
  store<i32>(acc + ACC_CROSSINGS, 0);
  store<i32>(acc + ACC_SIGN, (first >>> 15) & 1);
}

/**
 * One frame of §3.3 added to the running accumulator at `acc` (see frameStatsStartI16): its exact
 * Σx² joins the total, its clipped samples and zero crossings (against the last sample before it,
 * kept in `acc`) are counted. Returns the frame's RMS, sqrt of the correctly rounded Σx² / len.
 *
 * A zero crossing is a change of the int16 sign bit between neighbours (zero counts as
 * non-negative), so each vector's 8 sign bits, shifted by one and fed the previous sample's sign,
 * count its crossings. i16x8.abs leaves −32768 as 0x8000, which read unsigned is its magnitude.
 * Squares are summed as in sumSquaresI16. The counts are exact integers, so they do not depend on
 * how a clip is cut into frames or pushes.
 */
export function frameStatsStepI16(frame: usize, frameLen: i32, acc: usize): f64 {
  const level = i16x8.splat(<i16>CLIP_LEVEL);
  let clipped = load<i32>(acc + ACC_CLIPPED);
  let crossings = load<i32>(acc + ACC_CROSSINGS);
  let previousSign = load<i32>(acc + ACC_SIGN);
  let acc0 = i64x2.splat(0);
  let acc1 = i64x2.splat(0);
  let i = 0;
  for (; i + 8 <= frameLen; i += 8) {
    const v = v128.load(frame + (<usize>i << 1));
    const pairs = i32x4.dot_i16x8_s(v, v);
    acc0 = i64x2.add(acc0, i64x2.extend_low_i32x4_u(pairs));
    acc1 = i64x2.add(acc1, i64x2.extend_high_i32x4_u(pairs));
    clipped += popcnt(i16x8.bitmask(i16x8.ge_u(i16x8.abs(v), level)));
    const signs = i16x8.bitmask(v);
    crossings += popcnt((signs ^ ((signs << 1) | previousSign)) & 0xff);
    previousSign = signs >>> 7;
  }
  const vectorSum = i64x2.add(acc0, acc1);
  let sum = i64x2.extract_lane(vectorSum, 0) + i64x2.extract_lane(vectorSum, 1);
  for (; i < frameLen; i++) {
    const s = <i32>load<i16>(frame + (<usize>i << 1));
    sum += <i64>s * s;
    clipped += <i32>(abs(s) >= CLIP_LEVEL);
    const sign = s >>> 31;
    crossings += sign ^ previousSign;
    previousSign = sign;
  }
  store<i64>(acc + ACC_SUM_SQUARES, load<i64>(acc + ACC_SUM_SQUARES) + sum);
  store<i32>(acc + ACC_CLIPPED, clipped);
  store<i32>(acc + ACC_CROSSINGS, crossings);
  store<i32>(acc + ACC_SIGN, previousSign);
  return frameLen > 0 ? Math.sqrt(quotientF64(<u64>sum, <u64>frameLen)) : 0.0;
}

/**
 * Writes the totals block of §3.3 (24 bytes at `outTotals`) from the accumulator at `acc` after
 * `len` samples: the whole clip's RMS (f64), exact Σx² (i64), clipped count and zero crossings (i32).
 */
export function frameStatsTotals(acc: usize, len: i32, outTotals: usize): void {
  const total = load<i64>(acc + ACC_SUM_SQUARES);
  const clipped = load<i32>(acc + ACC_CLIPPED);
  const crossings = load<i32>(acc + ACC_CROSSINGS);
  store<f64>(outTotals + TOTAL_RMS, len > 0 ? Math.sqrt(quotientF64(<u64>total, <u64>len)) : 0.0);
  store<i64>(outTotals + TOTAL_SUM_SQUARES, total);
  store<i32>(outTotals + TOTAL_CLIPPED, clipped);
  store<i32>(outTotals + TOTAL_CROSSINGS, crossings);
}

/**
 * One pass over the clip for §3.3: writes the RMS of every frame(width) as f64 at `outRms`, and at
 * `outTotals` the whole clip's RMS (f64), exact Σx² (i64), count(|x| ≥ 32760) (i32) and number of
 * zero crossings (i32). Returns the frame count, or BAD_ARGUMENT. Every frame goes through
 * frameStatsStepI16, the step the streaming path (parity-stream.ts) takes too.
 */
export function frameStatsI16(ptr: usize, len: i32, width: i32, outRms: usize, outTotals: usize): i32 {
  if (len < 0 || width < 1) return BAD_ARGUMENT;
  const frames = frameCount(len, width);
  const acc = WHOLE_CLIP_ACC;
  frameStatsStartI16(acc, len > 0 ? <i32>load<i16>(ptr) : 0);
  for (let k = 0, start = 0; start < len; k++, start += width) {
    const rms = frameStatsStepI16(ptr + (<usize>start << 1), min(width, len - start), acc);
    if (k < frames) store<f64>(outRms + (<usize>k << 3), rms);
  }
  frameStatsTotals(acc, len, outTotals);
  return frames;
}

/** A 20 ms frame is silent iff its RMS is below this (§3.1). */
const SILENCE_RMS: f64 = 300.0;
/** Longest silent run that still counts as a dropout, in frames (§3.4). */
const MAX_DROPOUT_FRAMES: i32 = 10;

// Layout of the summary block written by frameSummaryF64 (40 bytes).
const SUMMARY_SPEECH: usize = 0;
const SUMMARY_NOISE: usize = 8;
const SUMMARY_SILENT: usize = 16;
const SUMMARY_LONGEST: usize = 20;
const SUMMARY_DROPOUTS: usize = 24;
const SUMMARY_VOICED: usize = 28;
const SUMMARY_QUIET: usize = 32;

// Layout of the 32-byte running accumulator of frameSummaryStepF64 (i32): silent frames, longest
// silent run, dropout events, voiced frames, quiet frames, start of the current silent run (−1:
// none), frames seen.
const SUM_SILENT: usize = 0;
const SUM_LONGEST: usize = 4;
const SUM_DROPOUTS: usize = 8;
const SUM_VOICED: usize = 12;
const SUM_QUIET: usize = 16;
const SUM_RUN_START: usize = 20;
const SUM_FRAMES: usize = 24;
/** Bytes of the accumulator block of frameSummaryStepF64. */
export const FRAME_SUMMARY_ACC_BYTES: i32 = 32;

/** The accumulator frameSummaryF64 runs its frames through (static memory, below the arena). */
const WHOLE_CLIP_SUMMARY_ACC: usize = memory.data(32, 16);

/** Starts the frame-summary accumulator at `acc` (no frames yet). */
export function frameSummaryStartF64(acc: usize): void {
  memory.fill(acc, 0, 32);
  store<i32>(acc + SUM_RUN_START, -1);
}

/**
 * The next frame, of RMS `r`, added to the counts of §3.3–3.5 at `acc`: silent (RMS < 300),
 * longest silent run, dropouts, voiced (RMS ≥ 300), quiet (0 < RMS < 300).
 *
 * Dropouts in one pass: a maximal silent run [a, e) counts iff a ≥ 1 (a silent-free frame before it),
 * e < frames (one after it) and e − a ≤ 10, which is what the reference's scan from index 1 finds.
 */
export function frameSummaryStepF64(acc: usize, r: f64): void {
  const k = load<i32>(acc + SUM_FRAMES);
  let runStart = load<i32>(acc + SUM_RUN_START);
  if (r < SILENCE_RMS) {
    store<i32>(acc + SUM_SILENT, load<i32>(acc + SUM_SILENT) + 1);
    if (runStart < 0) runStart = k;
    store<i32>(acc + SUM_LONGEST, max(load<i32>(acc + SUM_LONGEST), k + 1 - runStart));
    store<i32>(acc + SUM_QUIET, load<i32>(acc + SUM_QUIET) + <i32>(r > 0));
  } else {
    store<i32>(acc + SUM_VOICED, load<i32>(acc + SUM_VOICED) + 1);
    if (runStart >= 1 && k - runStart <= MAX_DROPOUT_FRAMES) store<i32>(acc + SUM_DROPOUTS, load<i32>(acc + SUM_DROPOUTS) + 1);
    runStart = -1;
  }
  store<i32>(acc + SUM_RUN_START, runStart);
  store<i32>(acc + SUM_FRAMES, k + 1);
}

/**
 * Writes the counts of the accumulator at `acc` into the summary block at `outSummary` (the layout
 * of frameSummaryF64) with the order statistics `speech` and `noise` the caller selected.
 */
export function frameSummaryWrite(acc: usize, speech: f64, noise: f64, outSummary: usize): void {
  store<f64>(outSummary + SUMMARY_SPEECH, speech);
  store<f64>(outSummary + SUMMARY_NOISE, noise);
  store<i32>(outSummary + SUMMARY_SILENT, load<i32>(acc + SUM_SILENT));
  store<i32>(outSummary + SUMMARY_LONGEST, load<i32>(acc + SUM_LONGEST));
  store<i32>(outSummary + SUMMARY_DROPOUTS, load<i32>(acc + SUM_DROPOUTS));
  store<i32>(outSummary + SUMMARY_VOICED, load<i32>(acc + SUM_VOICED));
  store<i32>(outSummary + SUMMARY_QUIET, load<i32>(acc + SUM_QUIET));
}

/**
 * §3.3–3.5 over the `frames` frame RMS values (f64) at `rmsPtr`, which it leaves untouched. Writes at
 * `outSummary`: speech = sorted(voiced)[trunc(0.75·(V − 1))] and noise = sorted(quiet)[trunc(0.25·(Q − 1))]
 * (f64, 0.0 when the list is empty), then as i32 the number of silent frames (RMS < 300), the
 * longest run of them, the dropout events of §3.4, V = count(RMS ≥ 300) and Q = count(0 < RMS < 300).
 * `scratch` holds `frames` f64. Returns `frames`, or BAD_ARGUMENT. The counts go through
 * frameSummaryStepF64, the step the streaming path takes too.
 */
export function frameSummaryF64(rmsPtr: usize, frames: i32, scratch: usize, outSummary: usize): i32 {
  if (frames < 0) return BAD_ARGUMENT;
  const acc = WHOLE_CLIP_SUMMARY_ACC;
  frameSummaryStartF64(acc);
  for (let k = 0; k < frames; k++) frameSummaryStepF64(acc, load<f64>(rmsPtr + (<usize>k << 3)));
  const voiced = load<i32>(acc + SUM_VOICED);
  const quiet = load<i32>(acc + SUM_QUIET);
  // Voiced values first, quiet ones after them, each in frame order (as the reference collects them).
  const voicedPtr = scratch;
  const quietPtr = scratch + (<usize>voiced << 3);
  let v = 0;
  let q = 0;
  for (let k = 0; k < frames; k++) {
    const r = load<f64>(rmsPtr + (<usize>k << 3));
    if (r >= SILENCE_RMS) {
      store<f64>(voicedPtr + (<usize>v << 3), r);
      v++;
    } else if (r > 0) {
      store<f64>(quietPtr + (<usize>q << 3), r);
      q++;
    }
  }
  const speech = voiced > 0 ? selectInPlaceF64(voicedPtr, voiced, <i32>(0.75 * <f64>(voiced - 1))) : 0.0;
  const noise = quiet > 0 ? selectInPlaceF64(quietPtr, quiet, <i32>(0.25 * <f64>(quiet - 1))) : 0.0;
  frameSummaryWrite(acc, speech, noise, outSummary);
  return frames;
}

/**
 * The order statistics of §3.5 over the `frames` frame RMS values (f64) at `rmsPtr`, reordering them
 * in place (for a caller that needs the values no more, so no scratch copy is made): the voiced values
 * (RMS ≥ 300) are gathered at the front, the quiet ones (0 < RMS < 300) right after them, and each
 * class is selected where it lies. Writes at `out` speech = sorted(voiced)[trunc(0.75·(V − 1))] and
 * noise = sorted(quiet)[trunc(0.25·(Q − 1))] (f64, 0.0 for an empty class), then V and Q (i32).
 * The same values as frameSummaryF64's: an order statistic does not depend on the order of its list.
 * Returns `frames`, or BAD_ARGUMENT.
 */
export function frameOrderStatsInPlaceF64(rmsPtr: usize, frames: i32, out: usize): i32 {
  if (frames < 0) return BAD_ARGUMENT;
  const voiced = gatherInPlaceF64(rmsPtr, 0, frames, true);
  const quiet = gatherInPlaceF64(rmsPtr, voiced, frames, false) - voiced;
  const quietPtr = rmsPtr + (<usize>voiced << 3);
  store<f64>(out, voiced > 0 ? selectInPlaceF64(rmsPtr, voiced, <i32>(0.75 * <f64>(voiced - 1))) : 0.0);
  store<f64>(out + 8, quiet > 0 ? selectInPlaceF64(quietPtr, quiet, <i32>(0.25 * <f64>(quiet - 1))) : 0.0);
  store<i32>(out + 16, voiced);
  store<i32>(out + 20, quiet);
  return frames;
}

/** Swaps the voiced (`voiced`) or quiet values among positions [from, frames) to [from, end); returns end. */
function gatherInPlaceF64(ptr: usize, from: i32, frames: i32, voiced: bool): i32 {
  let end = from;
  for (let k = from; k < frames; k++) {
    const at = ptr + (<usize>k << 3);
    const r = load<f64>(at);
    if (voiced ? r >= SILENCE_RMS : r > 0 && r < SILENCE_RMS) {
      const to = ptr + (<usize>end << 3);
      store<f64>(at, load<f64>(to));
      store<f64>(to, r);
      end++;
    }
  }
  return end;
}

/** sorted(values)[k] of `len` f64 at `ptr` without sorting: Hoare's quickselect, reordering them in place. */
function selectInPlaceF64(ptr: usize, len: i32, k: i32): f64 {
  let lo = 0;
  let hi = len - 1;
  while (lo < hi) {
    const pivot = load<f64>(ptr + (<usize>((lo + hi) >>> 1) << 3));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (load<f64>(ptr + (<usize>i << 3)) < pivot) i++;
      while (load<f64>(ptr + (<usize>j << 3)) > pivot) j--;
      if (i <= j) {
        const at = ptr + (<usize>i << 3);
        const to = ptr + (<usize>j << 3);
        const t = load<f64>(at);
        store<f64>(at, load<f64>(to));
        store<f64>(to, t);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return load<f64>(ptr + (<usize>k << 3));
}
