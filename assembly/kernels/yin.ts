// YIN fundamental-frequency estimation (de Cheveigné & Kawahara 2002, steps 1–4; acoustics.md §6.1).
//
// F0 of speech lies below 450 Hz, so the host first low-passes and decimates to ≈ 4 kHz
// (yinDecimate): the difference function then costs 16× less at 16 kHz. yinFrames evaluates YIN on
// frames whose start samples the host lists (only frames inside speech), writing the period in
// samples (with parabolic interpolation) and the aperiodicity d′(τ*).

import { cascadeFilter } from "./iir";
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

/** Samples filtered per block; the split-block warm-up (0.05 s) is small against it. */
const BLOCK: i32 = 1 << 17;
const SCRATCH_HEADER: usize = 16 << 3; // 10 coefficients, 4 states, padding to 16-byte alignment

/** Bytes of scratch yinDecimate needs. */
export function yinDecimateScratchSize(): i32 {
  return <i32>SCRATCH_HEADER + (BLOCK << 3);
}

/** Samples of one filter block of the incremental decimator (blocks start at multiples of it). */
export function yinDecimateBlockLength(): i32 {
  return BLOCK;
}

/**
 * Start the incremental decimator in `scratch` (yinDecimateScratchSize() bytes, 16-byte aligned):
 * 4th-order Butterworth low pass (two bilinear biquads) at `cutoffHz`, state zeroed.
 */
export function yinDecimateInit(scratch: usize, sampleRate: i32, cutoffHz: f64, factor: i32): i32 {
  if (factor < 1 || sampleRate < 1000 || !(cutoffHz > 0) || cutoffHz >= 0.5 * <f64>sampleRate || (scratch & 15) != 0) return BAD_ARGUMENT;
  const coef = scratch;
  const k = Math.tan(Math.PI * cutoffHz / <f64>sampleRate);
  // Butterworth pole-pair quality factors for order 4: 1/(2·cos(π/8)) and 1/(2·cos(3π/8)).
  const qs0: f64 = 0.5411961001461969, qs1: f64 = 1.3065629648763766;
  for (let stage = 0; stage < 2; stage++) {
    const q = stage == 0 ? qs0 : qs1;
    const norm = 1.0 / (1.0 + k / q + k * k);
    const base = coef + (<usize>(stage * 5) << 3);
    store<f64>(base, k * k * norm);
    store<f64>(base, 2.0 * k * k * norm, 8);
    store<f64>(base, k * k * norm, 16);
    store<f64>(base, 2.0 * (k * k - 1.0) * norm, 24);
    store<f64>(base, (1.0 - k / q + k * k) * norm, 32);
  }
  memory.fill(scratch + 80, 0, 32);
  store<i32>(scratch + 112, sampleRate);
  store<i32>(scratch + 116, factor);
  store<i32>(scratch + 120, 0); // samples filtered so far
  return 0;
}

/**
 * Low-pass the next block of `length` f32 samples (BLOCK, or fewer for the last block of the
 * signal) and write every sample whose overall index is a multiple of the factor to `out` (f32).
 * Returns the samples written or a negative status.
 */
export function yinDecimateBlock(scratch: usize, input: usize, length: i32, out: usize): i32 {
  if (length < 0 || length > BLOCK) return BAD_ARGUMENT;
  const sampleRate = load<i32>(scratch + 112);
  const factor = load<i32>(scratch + 116);
  const blockStart = load<i32>(scratch + 120);
  const y = scratch + SCRATCH_HEADER;
  cascadeFilter(input, length, scratch, scratch + 80, sampleRate / 20, y);
  let written = 0;
  // First index in this block that is a multiple of `factor` overall.
  for (let i = (factor - blockStart % factor) % factor; i < length; i += factor) {
    store<f32>(out + (<usize>written << 2), <f32>load<f64>(y + (<usize>i << 3)));
    written++;
  }
  store<i32>(scratch + 120, blockStart + length);
  return written;
}

/**
 * 4th-order Butterworth low pass (two bilinear biquads) at `cutoffHz`, then keep every `factor`-th
 * sample into `out` (f32); `scratch` holds yinDecimateScratchSize() bytes, 16-byte aligned.
 * Returns the samples written, ceil(n / factor), or a negative status. The incremental decimator
 * fed the whole signal in one go.
 */
export function yinDecimate(input: usize, n: i32, sampleRate: i32, cutoffHz: f64, factor: i32, scratch: usize, out: usize): i32 {
  if (n < 0) return BAD_ARGUMENT;
  const status = yinDecimateInit(scratch, sampleRate, cutoffHz, factor);
  if (status < 0) return status;
  let written = 0;
  for (let blockStart = 0; blockStart < n; blockStart += BLOCK) {
    const length = min(BLOCK, n - blockStart);
    written += yinDecimateBlock(scratch, input + (<usize>blockStart << 2), length, out + (<usize>written << 2));
  }
  return written;
}

/** d(τ) = Σ_{j<W} (x_j − x_{j+τ})² (step 1), f32x4 over j with a scalar tail. */
@inline function difference(x: usize, window: i32, tau: i32): f64 {
  let acc = f32x4.splat(0);
  let j = 0;
  const y = x + (<usize>tau << 2);
  for (; j + 4 <= window; j += 4) {
    const d = f32x4.sub(v128.load(x + (<usize>j << 2)), v128.load(y + (<usize>j << 2)));
    acc = f32x4.add(acc, f32x4.mul(d, d));
  }
  let sum = <f64>f32x4.extract_lane(acc, 0) + <f64>f32x4.extract_lane(acc, 1) +
    <f64>f32x4.extract_lane(acc, 2) + <f64>f32x4.extract_lane(acc, 3);
  for (; j < window; j++) {
    const d = <f64>load<f32>(x + (<usize>j << 2)) - <f64>load<f32>(y + (<usize>j << 2));
    sum += d * d;
  }
  return sum;
}

/**
 * YIN on `count` frames starting at the i32 sample indices in `starts`: window W samples, lags
 * tauMin…tauMax, absolute threshold `threshold`. Writes f32 period (samples, 0 when the frame does
 * not fit in the signal) and f32 aperiodicity d′(τ*) (1 when undefined). `scratch` holds tauMax + 1 f64.
 */
export function yinFrames(input: usize, n: i32, starts: usize, count: i32, window: i32, tauMin: i32, tauMax: i32,
  threshold: f64, scratch: usize, outPeriod: usize, outAperiodicity: usize): i32 {
  if (n < 0 || count < 0 || window < 1 || tauMin < 2 || tauMax <= tauMin) return BAD_ARGUMENT;
  for (let f = 0; f < count; f++) {
    const start = load<i32>(starts + (<usize>f << 2));
    let period: f64 = 0, aperiodicity: f64 = 1;
    if (start >= 0 && start + window + tauMax <= n) {
      const x = input + (<usize>start << 2);
      // Step 2: cumulative-mean-normalised difference d′(τ) = d(τ)·τ / Σ_{j=1}^{τ} d(j), d′(0) = 1.
      store<f64>(scratch, 1.0);
      let running: f64 = 0;
      for (let tau = 1; tau <= tauMax; tau++) {
        const d = difference(x, window, tau);
        running += d;
        store<f64>(scratch + (<usize>tau << 3), running > 0 ? d * <f64>tau / running : 1.0);
      }
      // Step 3: the first dip below the threshold, followed to its local minimum; else the global minimum.
      let best = -1;
      for (let tau = tauMin; tau <= tauMax; tau++) {
        if (load<f64>(scratch + (<usize>tau << 3)) < threshold) {
          while (tau < tauMax && load<f64>(scratch + (<usize>(tau + 1) << 3)) < load<f64>(scratch + (<usize>tau << 3))) tau++;
          best = tau;
          break;
        }
      }
      if (best < 0) {
        best = tauMin;
        for (let tau = tauMin + 1; tau <= tauMax; tau++) {
          if (load<f64>(scratch + (<usize>tau << 3)) < load<f64>(scratch + (<usize>best << 3))) best = tau;
        }
      }
      // Step 4: parabolic interpolation of d′ around τ*.
      const b = load<f64>(scratch + (<usize>best << 3));
      let shift: f64 = 0;
      if (best < tauMax) {
        const a = load<f64>(scratch + (<usize>(best - 1) << 3));
        const c = load<f64>(scratch + (<usize>(best + 1) << 3));
        const curvature = a - 2.0 * b + c;
        if (curvature > 0) shift = Math.max(-1.0, Math.min(1.0, 0.5 * (a - c) / curvature));
      }
      period = <f64>best + shift;
      aperiodicity = b;
    }
    store<f32>(outPeriod + (<usize>f << 2), <f32>period);
    store<f32>(outAperiodicity + (<usize>f << 2), <f32>aperiodicity);
  }
  return count;
}
