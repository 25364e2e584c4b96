// YIN fundamental-frequency estimation (de Cheveigné & Kawahara 2002, steps 1–4; acoustics.md §6.1).
//
// F0 of speech lies below 450 Hz, so the host first low-passes and decimates to ≈ 4 kHz
// (yinDecimate): the difference function then costs 16× less at 16 kHz. yinFrames evaluates YIN on
// frames whose start samples the host lists (only frames inside speech), writing the period in
// samples (with parabolic interpolation) and the aperiodicity d′(τ*).

const BAD_ARGUMENT: i32 = -1;
const DENORMAL_FLOOR: f64 = 1e-30;

/** 4th-order Butterworth low pass (two bilinear biquads) at `cutoffHz`, then keep every `factor`-th sample. */
export function yinDecimate(input: usize, n: i32, sampleRate: i32, cutoffHz: f64, factor: i32, out: usize): i32 {
  if (n < 0 || factor < 1 || sampleRate < 1000 || !(cutoffHz > 0) || cutoffHz >= 0.5 * <f64>sampleRate) return BAD_ARGUMENT;
  const k = Math.tan(Math.PI * cutoffHz / <f64>sampleRate);
  // Butterworth pole-pair quality factors for order 4: 1/(2·cos(π/8)) and 1/(2·cos(3π/8)).
  const q1 = 0.5411961001461969, q2 = 1.3065629648763766;
  const n1 = 1.0 / (1.0 + k / q1 + k * k), n2 = 1.0 / (1.0 + k / q2 + k * k);
  const g1 = k * k * n1, g2 = k * k * n2;
  const a11 = 2.0 * (k * k - 1.0) * n1, a12 = (1.0 - k / q1 + k * k) * n1;
  const a21 = 2.0 * (k * k - 1.0) * n2, a22 = (1.0 - k / q2 + k * k) * n2;
  let s1: f64 = 0, s2: f64 = 0, t1: f64 = 0, t2: f64 = 0;
  let written = 0;
  for (let i = 0; i < n; i++) {
    const x = <f64>load<f32>(input + (<usize>i << 2));
    const y = g1 * x + s1;
    s1 = 2.0 * g1 * x - a11 * y + s2;
    s2 = g1 * x - a12 * y;
    const z = g2 * y + t1;
    t1 = 2.0 * g2 * y - a21 * z + t2;
    t2 = g2 * y - a22 * z;
    if (i % factor == 0) {
      store<f32>(out + (<usize>written << 2), <f32>z);
      written++;
      if (Math.abs(s1) < DENORMAL_FLOOR) s1 = 0;
      if (Math.abs(s2) < DENORMAL_FLOOR) s2 = 0;
      if (Math.abs(t1) < DENORMAL_FLOOR) t1 = 0;
      if (Math.abs(t2) < DENORMAL_FLOOR) t2 = 0;
    }
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
