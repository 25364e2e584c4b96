// Shared helper for the IIR kernels: two cascaded biquads run as two f64x2 lanes over the two halves of a block.
//
// A recursive filter is latency-bound: one sample must finish before the next starts. Splitting the
// block in two and running both halves at once doubles throughput. The second half starts `warmup`
// samples early from a zero state; every filter here decays by far more than 10^−20 within the
// warm-up (0.25 s for the K-weighting's 38 Hz high pass), so the result equals sequential filtering
// to rounding. Not exported from the module: loudness, activity and yin import it.

/** Coefficient layout at `coef`: stage 1 b0 b1 b2 a1 a2, stage 2 b0 b1 b2 a1 a2 (10 f64). State: 4 f64. */
const DENORMAL_FLOOR: f64 = 1e-30;

@inline function c(coef: usize, i: i32): f64 {
  return load<f64>(coef + (<usize>i << 3));
}

/** Sequential transposed-direct-form-II cascade over [from, to), reading f32 input and writing f64 output. */
function cascadeScalar(input: usize, from: i32, to: i32, coef: usize, state: usize, out: usize): void {
  const b0 = c(coef, 0), b1 = c(coef, 1), b2 = c(coef, 2), a1 = c(coef, 3), a2 = c(coef, 4);
  const d0 = c(coef, 5), d1 = c(coef, 6), d2 = c(coef, 7), e1 = c(coef, 8), e2 = c(coef, 9);
  let s1 = load<f64>(state), s2 = load<f64>(state, 8), t1 = load<f64>(state, 16), t2 = load<f64>(state, 24);
  for (let i = from; i < to; i++) {
    const x = <f64>load<f32>(input + (<usize>i << 2));
    const y = b0 * x + s1;
    s1 = b1 * x - a1 * y + s2;
    s2 = b2 * x - a2 * y;
    const z = d0 * y + t1;
    t1 = d1 * y - e1 * z + t2;
    t2 = d2 * y - e2 * z;
    store<f64>(out + (<usize>i << 3), z);
  }
  store<f64>(state, Math.abs(s1) < DENORMAL_FLOOR ? 0 : s1);
  store<f64>(state, Math.abs(s2) < DENORMAL_FLOOR ? 0 : s2, 8);
  store<f64>(state, Math.abs(t1) < DENORMAL_FLOOR ? 0 : t1, 16);
  store<f64>(state, Math.abs(t2) < DENORMAL_FLOOR ? 0 : t2, 24);
}

/**
 * Filter `n` f32 samples through the cascade into `out` (f64), continuing from and updating `state`.
 * Blocks shorter than 3·warmup run sequentially.
 */
export function cascadeFilter(input: usize, n: i32, coef: usize, state: usize, warmup: i32, out: usize): void {
  if (n < 3 * warmup + 64) {
    cascadeScalar(input, 0, n, coef, state, out);
    return;
  }
  // Lane 0 runs [0, half) from the carried state; lane 1 runs [half − warmup, n) from zero, and its
  // first `warmup` outputs land in lane 0's range early enough to be overwritten by lane 0.
  const half = (n + warmup) >> 1;
  const offset = half - warmup;
  const steps = n - offset;
  const b0 = f64x2.splat(c(coef, 0)), b1 = f64x2.splat(c(coef, 1)), b2 = f64x2.splat(c(coef, 2));
  const a1 = f64x2.splat(c(coef, 3)), a2 = f64x2.splat(c(coef, 4));
  const d0 = f64x2.splat(c(coef, 5)), d1 = f64x2.splat(c(coef, 6)), d2 = f64x2.splat(c(coef, 7));
  const e1 = f64x2.splat(c(coef, 8)), e2 = f64x2.splat(c(coef, 9));
  let s1 = f64x2(load<f64>(state), 0), s2 = f64x2(load<f64>(state, 8), 0);
  let t1 = f64x2(load<f64>(state, 16), 0), t2 = f64x2(load<f64>(state, 24), 0);
  const lane0Steps = half;
  for (let i = 0; i < steps; i++) {
    // Lane 0 stops at `half`; past it, it keeps filtering its last sample harmlessly and writes nothing.
    const i0 = min(i, lane0Steps - 1);
    const x = f64x2(<f64>load<f32>(input + (<usize>i0 << 2)), <f64>load<f32>(input + (<usize>(offset + i) << 2)));
    const y = f64x2.add(f64x2.mul(b0, x), s1);
    s1 = f64x2.add(f64x2.sub(f64x2.mul(b1, x), f64x2.mul(a1, y)), s2);
    s2 = f64x2.sub(f64x2.mul(b2, x), f64x2.mul(a2, y));
    const z = f64x2.add(f64x2.mul(d0, y), t1);
    t1 = f64x2.add(f64x2.sub(f64x2.mul(d1, y), f64x2.mul(e1, z)), t2);
    t2 = f64x2.sub(f64x2.mul(d2, y), f64x2.mul(e2, z));
    store<f64>(out + (<usize>(offset + i) << 3), f64x2.extract_lane(z, 1));
    if (i < lane0Steps) store<f64>(out + (<usize>i << 3), f64x2.extract_lane(z, 0));
  }
  const f1 = f64x2.extract_lane(s1, 1), f2 = f64x2.extract_lane(s2, 1);
  const g1 = f64x2.extract_lane(t1, 1), g2 = f64x2.extract_lane(t2, 1);
  store<f64>(state, Math.abs(f1) < DENORMAL_FLOOR ? 0 : f1);
  store<f64>(state, Math.abs(f2) < DENORMAL_FLOOR ? 0 : f2, 8);
  store<f64>(state, Math.abs(g1) < DENORMAL_FLOOR ? 0 : g1, 16);
  store<f64>(state, Math.abs(g2) < DENORMAL_FLOOR ? 0 : g2, 24);
}

/** Σ y² over `count` f64 samples, f64x2 with a scalar tail. */
export function sumSquares(y: usize, count: i32): f64 {
  let acc = f64x2.splat(0);
  let i = 0;
  for (; i + 2 <= count; i += 2) {
    const v = v128.load(y + (<usize>i << 3));
    acc = f64x2.add(acc, f64x2.mul(v, v));
  }
  let sum = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
  for (; i < count; i++) {
    const v = load<f64>(y + (<usize>i << 3));
    sum += v * v;
  }
  return sum;
}
