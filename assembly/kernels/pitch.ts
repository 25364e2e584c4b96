// Autocorrelation pitch per 40 ms frame, bit-identical to deepeval's sequential float64 search (voice-metrics.md §3.6).
//
// The spec computes corr(lag) = Σ c[i]·c[i+lag] (c = d − mean) with sequential float64 sums for every
// lag. Here the raw sums Σ d[i]·d[i+lag] are exact integers from SIMD dot products, which give
// N²·corr(lag) exactly (for the exact mean) in closed form. The spec's float64 values differ from
// those exact values by at most a rounding bound E, so a lag whose exact value is more than 2E below
// the best cannot win the float comparison: only the lags within 2E of the best are recomputed with
// the spec's sequential sums, and the voicing ratio is recomputed only when it lies within its own
// bound of 0.15. Every other decision is taken on exact integers, so the result equals the spec's.
//
// i32x4.dot adds two products per lane into i32 accumulators. When a Cauchy–Schwarz bound on the
// frame's energy shows a lane cannot overflow (almost every speech frame), the dot runs on d itself;
// otherwise d is split into high and low bytes (d = 256·high + low), whose products are small enough
// for any full-scale frame.

import { frameCount, rmsI16 } from "./frames";
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

const SILENCE_RMS: f64 = 300.0;
const PITCH_FRAME_MS: i64 = 40;
const DECIMATED_RATE_HZ: i32 = 8000;
const MIN_PITCH_HZ: f64 = 70.0;
const MAX_PITCH_HZ: f64 = 400.0;
const VOICING_THRESHOLD: f64 = 0.15;

/** Longest decimated frame, ceil(w40 / step): ≤ 639 below 16 kHz (step 1), ≤ 480 from 16 kHz on. */
const MAX_DECIMATED: i32 = 640;
/** Lags are computed 4 at a time; their vector loads read up to 10 samples past the frame, which stay zero. */
const LAG_BLOCK: i32 = 4;
const PADDING: i32 = 16;
const LONGEST_LAG: i32 = MAX_DECIMATED >> 1;
const ROW_BYTES: usize = <usize>(MAX_DECIMATED + PADDING) << 1;
const PREFIX_BYTES: usize = ((<usize>(MAX_DECIMATED + 1) << 2) + 15) & ~(<usize>15);
// Scratch: decimated samples d, their high bytes (d >> 8) and low bytes (d & 255), prefix sums of d,
// Σd² per index residue mod 8, and N²·corr(lag) as exact i64 per lag.
const HIGH_OFFSET: usize = ROW_BYTES;
const LOW_OFFSET: usize = 2 * ROW_BYTES;
const PREFIX_OFFSET: usize = 3 * ROW_BYTES;
const RESIDUE_OFFSET: usize = PREFIX_OFFSET + PREFIX_BYTES;
const CORR_OFFSET: usize = RESIDUE_OFFSET + (8 << 3);
const SCRATCH_BYTES: usize = CORR_OFFSET + (<usize>(LONGEST_LAG + LAG_BLOCK) << 3);
const I32_MAX: i64 = 0x7fffffff;

/** 2^−52, twice the float64 unit roundoff: the error bound below is used with a factor 2 of safety. */
const ROUNDING: f64 = 2.220446049250313e-16;
/** Covers the roundings of the approximate ratio K/E (≤ 4 ulp of a value ≤ 1). */
const RATIO_SLACK: f64 = 1e-15;

/** Bytes of the 16-byte-aligned scratch block pitchFramesI16 needs (independent of the rate). */
export function pitchScratchBytes(): i32 {
  return <i32>SCRATCH_BYTES;
}

/** Width in samples of the 40 ms pitch frame at `sampleRate`: max(1, floor(sr·40/1000)). */
export function pitchFrameWidth(sampleRate: i32): i32 {
  return <i32>max<i64>(1, (<i64>sampleRate * PITCH_FRAME_MS) / 1000);
}

/**
 * Pitch of every 40 ms frame of §3.6, written as f64 Hz at `outPitch` (0.0 = no pitch); returns
 * the frame count (or BAD_ARGUMENT). `scratch` holds pitchScratchBytes() bytes.
 */
export function pitchFramesI16(ptr: usize, len: i32, sampleRate: i32, scratch: usize, outPitch: usize): i32 {
  if (len < 0 || sampleRate < 1 || (scratch & 15) != 0) return BAD_ARGUMENT;
  const width = pitchFrameWidth(sampleRate);
  const frames = frameCount(len, width);
  for (let k = 0; k < frames; k++) {
    const start = k * width;
    const frameLen = min(width, len - start);
    store<f64>(outPitch + (<usize>k << 3), pitchFrameI16(ptr + (<usize>start << 1), frameLen, sampleRate, scratch));
  }
  return frames;
}

/**
 * Pitch in Hz (0.0 = none) of the one 40 ms frame of `len` int16 samples at `frame` (a last
 * partial frame included), at `sampleRate`: the step of pitchFramesI16 and of the streaming path.
 * `scratch` holds pitchScratchBytes() bytes, 16-byte aligned.
 */
export function pitchFrameI16(frame: usize, len: i32, sampleRate: i32, scratch: usize): f64 {
  const step = max(1, sampleRate / DECIMATED_RATE_HZ);
  const rate = <f64>sampleRate / <f64>step;
  const minLag = max(1, <i32>(rate / MAX_PITCH_HZ));
  const rateMaxLag = <i32>(rate / MIN_PITCH_HZ);
  return framePitch(frame, len, step, rate, minLag, rateMaxLag, scratch);
}

function framePitch(frame: usize, len: i32, step: i32, rate: f64, minLag: i32, rateMaxLag: i32, scratch: usize): f64 {
  if (rmsI16(frame, len) < SILENCE_RMS) return 0.0;
  const n = (len + step - 1) / step;
  const maxLag = min(n >> 1, rateMaxLag);
  if (maxLag <= minLag) return 0.0;

  const d = scratch;
  const prefix = scratch + PREFIX_OFFSET;
  const residues = scratch + RESIDUE_OFFSET;
  let sum32: i32 = 0;
  for (let j = 0; j < n; j++) {
    const s = <i32>load<i16>(frame + (<usize>(j * step) << 1));
    store<i16>(d + (<usize>j << 1), <i16>s);
    store<i32>(prefix + (<usize>j << 2), sum32);
    sum32 += s;
  }
  store<i32>(prefix + (<usize>n << 2), sum32);
  memory.fill(d + (<usize>n << 1), 0, <usize>PADDING << 1);
  const sum = <i64>sum32;
  const sumSquares = storeResidueEnergies(d, n, residues);

  // N²·Σ(d − μ)² exactly; zero iff all samples are equal, and then the spec's float energy is 0 too.
  const nn = <i64>n;
  const energyN2 = nn * (nn * sumSquares - sum * sum);
  if (energyN2 <= 0) return 0.0;
  if (largestNeighbourEnergy(residues) <= I32_MAX) storeCorrelationsNarrow(scratch, n, minLag, maxLag, sum);
  else storeCorrelationsSplit(scratch, n, minLag, maxLag, sum);

  const corr = scratch + CORR_OFFSET;
  let bestLag = minLag;
  let bestExact = load<i64>(corr + (<usize>minLag << 3));
  for (let lag = minLag + 1; lag <= maxLag; lag++) {
    const value = load<i64>(corr + (<usize>lag << 3));
    if (value > bestExact) {
      bestExact = value;
      bestLag = lag;
    }
  }

  // |float corr − exact corr| ≤ (n + 3)·u·Σ(|d| + 2|μ|)² ≤ (n + 3)·u·(2·Σd² + 8·N·μ²) for every lag
  // (and for the energy, lag 0): c[i] carries the rounding of the mean and of the subtraction, then
  // products and n sequential additions round. errorBound doubles u for safety.
  const nf = <f64>n;
  const n2f = nf * nf;
  const sumF = <f64>sum;
  const errorBound = <f64>(n + 4) * ROUNDING * (2.0 * <f64>sumSquares + (8.0 * sumF * sumF) / nf);
  const marginN2 = 2.0 * errorBound * n2f;
  let candidates = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    candidates += <i32>(<f64>(bestExact - load<i64>(corr + (<usize>lag << 3))) <= marginN2);
  }
  const mean = sumF / nf;
  let bestFloat: f64 = -Infinity;
  if (candidates > 1) {
    for (let lag = minLag; lag <= maxLag; lag++) {
      if (<f64>(bestExact - load<i64>(corr + (<usize>lag << 3))) > marginN2) continue;
      const value = sequentialCorrelation(d, n, lag, mean);
      if (value > bestFloat) {
        bestFloat = value;
        bestLag = lag;
      }
    }
  }

  const pitchHz = rate / <f64>bestLag;
  const energyExact = <f64>energyN2 / n2f;
  if (energyExact > 2.0 * errorBound) {
    const ratio = <f64>load<i64>(corr + (<usize>bestLag << 3)) / <f64>energyN2;
    const ratioMargin = (2.0 * errorBound) / (energyExact - errorBound) + RATIO_SLACK;
    if (Math.abs(ratio - VOICING_THRESHOLD) > ratioMargin) return ratio < VOICING_THRESHOLD ? 0.0 : pitchHz;
  }
  const bestCorr = candidates > 1 ? bestFloat : sequentialCorrelation(d, n, bestLag, mean);
  const energy = sequentialCorrelation(d, n, 0, mean);
  return bestCorr / energy < VOICING_THRESHOLD ? 0.0 : pitchHz;
}

/** Stores Σd² over the indices ≡ r (mod 8) for r = 0…7 as i64 at `residues`; returns Σd². d must be zero-padded. */
function storeResidueEnergies(d: usize, n: i32, residues: usize): i64 {
  let e01 = i64x2.splat(0);
  let e23 = i64x2.splat(0);
  let e45 = i64x2.splat(0);
  let e67 = i64x2.splat(0);
  for (let i = 0; i < n; i += 8) {
    const v = v128.load(d + (<usize>i << 1));
    const low = i32x4.extmul_low_i16x8_s(v, v);
    const high = i32x4.extmul_high_i16x8_s(v, v);
    e01 = i64x2.add(e01, i64x2.extend_low_i32x4_u(low));
    e23 = i64x2.add(e23, i64x2.extend_high_i32x4_u(low));
    e45 = i64x2.add(e45, i64x2.extend_low_i32x4_u(high));
    e67 = i64x2.add(e67, i64x2.extend_high_i32x4_u(high));
  }
  v128.store(residues, e01);
  v128.store(residues, e23, 16);
  v128.store(residues, e45, 32);
  v128.store(residues, e67, 48);
  const total = i64x2.add(i64x2.add(e01, e23), i64x2.add(e45, e67));
  return i64x2.extract_lane(total, 0) + i64x2.extract_lane(total, 1);
}

/**
 * max over r of Σd² on the indices ≡ r or r + 1 (mod 8). A dot lane for lag L adds products
 * d[i]·d[i+L] over i ≡ 2j, 2j + 1 (mod 8), two neighbouring residues, and i + L covers two
 * neighbouring residues too, so |lane| ≤ ½(Σ d[i]² + Σ d[i+L]²) ≤ this value at every step.
 */
function largestNeighbourEnergy(residues: usize): i64 {
  let largest: i64 = 0;
  for (let r = 0; r < 8; r++) {
    const pair = load<i64>(residues + (<usize>r << 3)) + load<i64>(residues + (<usize>((r + 1) & 7) << 3));
    largest = max(largest, pair);
  }
  return largest;
}

/**
 * N²·corr(lag) for minLag…maxLag, exactly, with one i32x4.dot per 8 products; only valid when
 * largestNeighbourEnergy ≤ 2^31 − 1. Lags go 4 at a time so each load of d[i…] serves four of them.
 */
function storeCorrelationsNarrow(scratch: usize, n: i32, minLag: i32, maxLag: i32, sum: i64): void {
  const d = scratch;
  const prefix = scratch + PREFIX_OFFSET;
  const corr = scratch + CORR_OFFSET;
  for (let lag = minLag; lag <= maxLag; lag += LAG_BLOCK) {
    let acc0 = i32x4.splat(0);
    let acc1 = i32x4.splat(0);
    let acc2 = i32x4.splat(0);
    let acc3 = i32x4.splat(0);
    const count = n - lag;
    for (let i = 0; i < count; i += 8) {
      const at = d + (<usize>i << 1);
      const x = v128.load(at);
      const shifted = at + (<usize>lag << 1);
      acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(x, v128.load(shifted)));
      acc1 = i32x4.add(acc1, i32x4.dot_i16x8_s(x, v128.load(shifted + 2)));
      acc2 = i32x4.add(acc2, i32x4.dot_i16x8_s(x, v128.load(shifted + 4)));
      acc3 = i32x4.add(acc3, i32x4.dot_i16x8_s(x, v128.load(shifted + 6)));
    }
    storeCorrelation(corr, prefix, n, lag, laneSum(acc0), sum);
    if (lag + 1 <= maxLag) storeCorrelation(corr, prefix, n, lag + 1, laneSum(acc1), sum);
    if (lag + 2 <= maxLag) storeCorrelation(corr, prefix, n, lag + 2, laneSum(acc2), sum);
    if (lag + 3 <= maxLag) storeCorrelation(corr, prefix, n, lag + 3, laneSum(acc3), sum);
  }
}

/** As storeCorrelationsNarrow for any frame: Σ d[i]·d[i+lag] = 256·Σ high[i]·d[i+lag] + Σ low[i]·d[i+lag]. */
function storeCorrelationsSplit(scratch: usize, n: i32, minLag: i32, maxLag: i32, sum: i64): void {
  const d = scratch;
  const high = scratch + HIGH_OFFSET;
  const low = scratch + LOW_OFFSET;
  const prefix = scratch + PREFIX_OFFSET;
  const corr = scratch + CORR_OFFSET;
  const lowMask = i16x8.splat(0xff);
  for (let i = 0; i < n + PADDING; i += 8) {
    const at = <usize>i << 1;
    const x = v128.load(d + at);
    v128.store(high + at, i16x8.shr_s(x, 8));
    v128.store(low + at, v128.and(x, lowMask));
  }
  for (let lag = minLag; lag <= maxLag; lag += LAG_BLOCK) {
    // A high lane adds products of at most 2·128·32768 = 2^23, a low lane of at most 2·255·32768 < 2^24,
    // and a lane sees at most 80 of them (N ≤ 640): neither can overflow i32.
    let high0 = i32x4.splat(0), low0 = i32x4.splat(0);
    let high1 = i32x4.splat(0), low1 = i32x4.splat(0);
    let high2 = i32x4.splat(0), low2 = i32x4.splat(0);
    let high3 = i32x4.splat(0), low3 = i32x4.splat(0);
    const count = n - lag;
    for (let i = 0; i < count; i += 8) {
      const at = <usize>i << 1;
      const h = v128.load(high + at);
      const l = v128.load(low + at);
      const shifted = d + at + (<usize>lag << 1);
      const s0 = v128.load(shifted);
      const s1 = v128.load(shifted + 2);
      const s2 = v128.load(shifted + 4);
      const s3 = v128.load(shifted + 6);
      high0 = i32x4.add(high0, i32x4.dot_i16x8_s(h, s0));
      low0 = i32x4.add(low0, i32x4.dot_i16x8_s(l, s0));
      high1 = i32x4.add(high1, i32x4.dot_i16x8_s(h, s1));
      low1 = i32x4.add(low1, i32x4.dot_i16x8_s(l, s1));
      high2 = i32x4.add(high2, i32x4.dot_i16x8_s(h, s2));
      low2 = i32x4.add(low2, i32x4.dot_i16x8_s(l, s2));
      high3 = i32x4.add(high3, i32x4.dot_i16x8_s(h, s3));
      low3 = i32x4.add(low3, i32x4.dot_i16x8_s(l, s3));
    }
    storeCorrelation(corr, prefix, n, lag, (laneSum(high0) << 8) + laneSum(low0), sum);
    if (lag + 1 <= maxLag) storeCorrelation(corr, prefix, n, lag + 1, (laneSum(high1) << 8) + laneSum(low1), sum);
    if (lag + 2 <= maxLag) storeCorrelation(corr, prefix, n, lag + 2, (laneSum(high2) << 8) + laneSum(low2), sum);
    if (lag + 3 <= maxLag) storeCorrelation(corr, prefix, n, lag + 3, (laneSum(high3) << 8) + laneSum(low3), sum);
  }
}

/**
 * Stores N²·corr(lag) exactly from R = Σ d[i]·d[i+lag]: with S = Σd, Sx = Σ_{i<N−lag} d[i] and
 * Sy = Σ_{i≥lag} d[i], N²·Σ(d[i] − μ)(d[i+lag] − μ) = N²·R − N·S·(Sx + Sy) + (N − lag)·S².
 * Every term stays below 2^59 for N ≤ 640.
 */
@inline function storeCorrelation(corr: usize, prefix: usize, n: i32, lag: i32, raw: i64, sum: i64): void {
  const nn = <i64>n;
  const sumFront = <i64>load<i32>(prefix + (<usize>(n - lag) << 2));
  const sumBack = sum - <i64>load<i32>(prefix + (<usize>lag << 2));
  const value = nn * nn * raw - nn * sum * (sumFront + sumBack) + (nn - lag) * sum * sum;
  store<i64>(corr + (<usize>lag << 3), value);
}

@inline function laneSum(v: v128): i64 {
  return (
    <i64>i32x4.extract_lane(v, 0) +
    <i64>i32x4.extract_lane(v, 1) +
    <i64>i32x4.extract_lane(v, 2) +
    <i64>i32x4.extract_lane(v, 3)
  );
}

/** The spec's own sum: Σ_{i<n−lag} (d[i] − mean)·(d[i+lag] − mean), sequential float64 (lag 0 gives the energy). */
function sequentialCorrelation(d: usize, n: i32, lag: i32, mean: f64): f64 {
  let sum = 0.0;
  for (let i = 0; i + lag < n; i++) {
    const a = <f64>load<i16>(d + (<usize>i << 1)) - mean;
    const b = <f64>load<i16>(d + (<usize>(i + lag) << 1)) - mean;
    sum += a * b;
  }
  return sum;
}

/**
 * The pitched frames of §3.3 (pitch_mean_hz, pitch_variation_hz): copies every value > 0 of the
 * `frames` f64 pitches at `pitchPtr` to `outPitch`, in frame order; returns how many (or BAD_ARGUMENT).
 * `outPitch` may equal `pitchPtr`.
 */
export function voicedPitchesF64(pitchPtr: usize, frames: i32, outPitch: usize): i32 {
  if (frames < 0) return BAD_ARGUMENT;
  let count = 0;
  for (let k = 0; k < frames; k++) {
    const p = load<f64>(pitchPtr + (<usize>k << 3));
    if (p > 0) {
      store<f64>(outPitch + (<usize>count << 3), p);
      count++;
    }
  }
  return count;
}
