// Parity frame kernels over int16 mono PCM: exact sums of squares, RMS, 20 ms frames, clipping, zero crossings (voice-metrics.md §3.2–3.3).
//
// deepeval sums squares of integers exactly and divides once, so every sum here is an integer
// accumulation (i64) and every RMS is sqrt of the correctly rounded quotient, like Python's int / int.

/** Status: an argument is out of range. */
const BAD_ARGUMENT: i32 = -1;
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

/** Writes the RMS of every frame(width) as f64 at `outRms`; returns the frame count (or BAD_ARGUMENT). */
export function frameRmsI16(ptr: usize, len: i32, width: i32, outRms: usize): i32 {
  if (len < 0 || width < 1) return BAD_ARGUMENT;
  const frames = frameCount(len, width);
  for (let k = 0; k < frames; k++) {
    const start = k * width;
    const frameLen = min(width, len - start);
    store<f64>(outRms + (<usize>k << 3), rmsI16(ptr + (<usize>start << 1), frameLen));
  }
  return frames;
}

/** count(|x| ≥ 32760) over `len` samples (§3.3 clipping_fraction numerator). */
export function countClippedI16(ptr: usize, len: i32): i32 {
  // i16x8.abs leaves −32768 as 0x8000, which read unsigned is exactly its magnitude 32768.
  const level = i16x8.splat(<i16>CLIP_LEVEL);
  let count = 0;
  let i = 0;
  for (; i + 8 <= len; i += 8) {
    const magnitude = i16x8.abs(v128.load(ptr + (<usize>i << 1)));
    count += popcnt(i16x8.bitmask(i16x8.ge_u(magnitude, level)));
  }
  for (; i < len; i++) {
    const s = <i32>load<i16>(ptr + (<usize>i << 1));
    count += <i32>(abs(s) >= CLIP_LEVEL);
  }
  return count;
}

/** Number of i in 1..len−1 where x[i−1] and x[i] lie on different sides of zero, zero counting as non-negative (§3.3). */
export function countZeroCrossingsI16(ptr: usize, len: i32): i32 {
  // A crossing is a change of the int16 sign bit, so the sign bit of x[i] ^ x[i−1] counts it.
  let count = 0;
  let i = 1;
  for (; i + 8 <= len; i += 8) {
    const at = ptr + (<usize>i << 1);
    const current = v128.load(at);
    const previous = v128.load(at - 2);
    count += popcnt(i16x8.bitmask(v128.xor(current, previous)));
  }
  for (; i < len; i++) {
    const at = ptr + (<usize>i << 1);
    count += ((<i32>load<i16>(at) ^ <i32>load<i16>(at - 2)) >>> 31);
  }
  return count;
}
