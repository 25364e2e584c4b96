// Intensity contour for syllable nuclei (de Jong & Wempe via Praat "To Intensity", acoustics.md §3.2 step 1).
//
// Frame k covers samples [k·step, k·step + length): a Kaiser window (β = 20, Gaussian-like, as Praat)
// weights the squared deviation from the window's weighted mean ("subtract mean"), so the value is
// a weighted variance, written in dB (10·log10(v + 1e−20)). The caller provides the window.
import { BAD_ARGUMENT } from "../../src/dsp/kernel-status";

const INTENSITY_FLOOR: f64 = 1e-20;

/** Modified Bessel function I0 by its power series (converges quickly for β ≤ 30). */
function besselI0(x: f64): f64 {
  let sum: f64 = 1.0, term: f64 = 1.0;
  const q = x * x / 4.0;
  for (let k = 1; k < 60; k++) {
    term *= q / (<f64>k * <f64>k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** Fill `window` (f32 × length) with a Kaiser window of shape `beta`. */
export function syllableKaiserWindow(window: usize, length: i32, beta: f64): i32 {
  if (length < 1) return BAD_ARGUMENT;
  const denominator = besselI0(beta);
  const half = <f64>(length - 1) / 2.0;
  for (let i = 0; i < length; i++) {
    const r = half > 0 ? (<f64>i - half) / half : 0.0;
    store<f32>(window + (<usize>i << 2), <f32>(besselI0(beta * Math.sqrt(Math.max(0.0, 1.0 - r * r))) / denominator));
  }
  return 0;
}

/** Frames syllableIntensity writes for `n` samples. */
export function syllableFrameCount(n: i32, length: i32, step: i32): i32 {
  if (length < 1 || step < 1 || n < length) return 0;
  return (n - length) / step + 1;
}

/**
 * Intensity (dB) of every frame into `out` (f32); returns the frame count or a negative status.
 * Sums run as f32x4 products accumulated per frame in f64x2, with a scalar tail.
 */
export function syllableIntensity(input: usize, n: i32, window: usize, length: i32, step: i32, out: usize): i32 {
  if (n < 0 || length < 1 || step < 1) return BAD_ARGUMENT;
  const frames = syllableFrameCount(n, length, step);
  let weightSum: f64 = 0;
  for (let i = 0; i < length; i++) weightSum += <f64>load<f32>(window + (<usize>i << 2));
  for (let f = 0; f < frames; f++) {
    const x = input + (<usize>(f * step) << 2);
    let sx = f64x2.splat(0), sxx = f64x2.splat(0);
    let i = 0;
    for (; i + 4 <= length; i += 4) {
      const w = v128.load(window + (<usize>i << 2));
      const v = v128.load(x + (<usize>i << 2));
      const wx = f32x4.mul(w, v);
      const wxx = f32x4.mul(wx, v);
      sx = f64x2.add(sx, f64x2.add(f64x2.promote_low_f32x4(wx), f64x2.promote_low_f32x4(v128.shuffle<f32>(wx, wx, 2, 3, 0, 1))));
      sxx = f64x2.add(sxx, f64x2.add(f64x2.promote_low_f32x4(wxx), f64x2.promote_low_f32x4(v128.shuffle<f32>(wxx, wxx, 2, 3, 0, 1))));
    }
    let mx = f64x2.extract_lane(sx, 0) + f64x2.extract_lane(sx, 1);
    let mxx = f64x2.extract_lane(sxx, 0) + f64x2.extract_lane(sxx, 1);
    for (; i < length; i++) {
      const w = <f64>load<f32>(window + (<usize>i << 2));
      const v = <f64>load<f32>(x + (<usize>i << 2));
      mx += w * v;
      mxx += w * v * v;
    }
    mx /= weightSum;
    const variance = Math.max(0.0, mxx / weightSum - mx * mx);
    store<f32>(out + (<usize>f << 2), <f32>(10.0 * Math.log10(variance + INTENSITY_FLOOR)));
  }
  return frames;
}
