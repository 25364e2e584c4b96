// Signal-quality kernels: one-pass sums for DC offset and WADA-SNR, clipping runs (acoustics.md §4, §5.1, §5.3), and a long-term power spectrum for the bandwidth class.
import { OK, BAD_ARGUMENT } from "../../src/dsp/kernel-status";

/** WADA floors |x| at 1e−10 so digital silence has a finite log (Kim & Stern; Ellis `wada_snr.m`). */
const ABS_FLOOR: f32 = 1e-10;
const SQRT2: f32 = 1.4142135623730951;
const LN2: f32 = 0.6931471805599453;

/**
 * ln x for x > 0 (f32x4): x = 2^e·m with m ∈ [√½, √2), ln m = 2·atanh(t), t = (m − 1)/(m + 1) by its
 * series to t⁹ (|t| ≤ 0.172, error < 3e−8 in ln m). About 6e−7 absolute in total, far below what
 * the WADA statistic needs, and ≈ 10× cheaper than a libm call per sample.
 */
@inline function fastLn(x: v128): v128 {
  let e = i32x4.sub(i32x4.shr_u(x, 23), i32x4.splat(127));
  let m = v128.or(v128.and(x, i32x4.splat(0x7fffff)), i32x4.splat(0x3f800000));
  const big = f32x4.gt(m, f32x4.splat(SQRT2));
  m = v128.bitselect(f32x4.mul(m, f32x4.splat(0.5)), m, big);
  e = i32x4.sub(e, big);
  const t = f32x4.div(f32x4.sub(m, f32x4.splat(1)), f32x4.add(m, f32x4.splat(1)));
  const t2 = f32x4.mul(t, t);
  let p = f32x4.add(f32x4.splat(1.0 / 7.0), f32x4.mul(t2, f32x4.splat(1.0 / 9.0)));
  p = f32x4.add(f32x4.splat(1.0 / 5.0), f32x4.mul(t2, p));
  p = f32x4.add(f32x4.splat(1.0 / 3.0), f32x4.mul(t2, p));
  p = f32x4.add(f32x4.splat(1.0), f32x4.mul(t2, p));
  const lnm = f32x4.mul(f32x4.mul(f32x4.splat(2), t), p);
  return f32x4.add(f32x4.mul(f32x4.convert_i32x4_s(e), f32x4.splat(LN2)), lnm);
}

@inline function addPromoted(acc: v128, v: v128): v128 {
  return f64x2.add(acc, f64x2.add(f64x2.promote_low_f32x4(v), f64x2.promote_low_f32x4(v128.shuffle<f32>(v, v, 2, 3, 0, 1))));
}

// Incremental state of signalStats (64 bytes, 16-byte aligned): the three f64x2 sums, the current
// clipping run, the runs and the clipped samples so far.
const STATS_SUM: usize = 0;
const STATS_SUM_ABS: usize = 16;
const STATS_SUM_LN: usize = 32;
const STATS_RUN: usize = 48;
const STATS_RUNS: usize = 52;
const STATS_CLIPPED: usize = 56;

/** Bytes of the incremental signalStats state. */
export function signalStatsStateSize(): i32 {
  return 64;
}

/** Start incremental signal stats at `state` (signalStatsStateSize() bytes, 16-byte aligned). */
export function signalStatsInit(state: usize): i32 {
  if ((state & 15) != 0) return BAD_ARGUMENT;
  memory.fill(state, 0, 64);
  return OK;
}

/**
 * Add `n` samples, a multiple of 4, to the state: the four-lane part of signalStats. Samples fed in
 * groups of four from the first one on sum exactly as signalStats sums them.
 */
export function signalStatsPush(state: usize, input: usize, n: i32, clipLevel: f32, minRun: i32): i32 {
  if (n < 0 || (n & 3) != 0 || minRun < 1 || (state & 15) != 0) return BAD_ARGUMENT;
  let sum = v128.load(state + STATS_SUM), sumAbs = v128.load(state + STATS_SUM_ABS), sumLn = v128.load(state + STATS_SUM_LN);
  let run = load<i32>(state + STATS_RUN), runs = load<i32>(state + STATS_RUNS), clipped = load<i64>(state + STATS_CLIPPED);
  const level = f32x4.splat(clipLevel);
  const floor = f32x4.splat(ABS_FLOOR);
  for (let i = 0; i + 4 <= n; i += 4) {
    const v = v128.load(input + (<usize>i << 2));
    const a = f32x4.abs(v);
    sum = addPromoted(sum, v);
    sumAbs = addPromoted(sumAbs, a);
    sumLn = addPromoted(sumLn, fastLn(f32x4.max(a, floor)));
    const over = f32x4.ge(a, level);
    if (v128.any_true(over)) {
      // Rare path: walk the four lanes to extend or close runs exactly.
      for (let lane = 0; lane < 4; lane++) {
        if (Mathf.abs(load<f32>(input + (<usize>(i + lane) << 2))) >= clipLevel) run++;
        else {
          if (run >= minRun) { runs++; clipped += run; }
          run = 0;
        }
      }
    } else if (run > 0) {
      if (run >= minRun) { runs++; clipped += run; }
      run = 0;
    }
  }
  v128.store(state + STATS_SUM, sum);
  v128.store(state + STATS_SUM_ABS, sumAbs);
  v128.store(state + STATS_SUM_LN, sumLn);
  store<i32>(state + STATS_RUN, run);
  store<i32>(state + STATS_RUNS, runs);
  store<i64>(state + STATS_CLIPPED, clipped);
  return OK;
}

/** The last `n` (< 4 after the pushes, any count in general) samples one by one, then the 5 f64 of signalStats to `out`. */
export function signalStatsFinish(state: usize, input: usize, n: i32, clipLevel: f32, minRun: i32, out: usize): i32 {
  if (n < 0 || minRun < 1 || (state & 15) != 0) return BAD_ARGUMENT;
  const sum = v128.load(state + STATS_SUM), sumAbs = v128.load(state + STATS_SUM_ABS), sumLn = v128.load(state + STATS_SUM_LN);
  let run = load<i32>(state + STATS_RUN), runs = load<i32>(state + STATS_RUNS), clipped = load<i64>(state + STATS_CLIPPED);
  let s = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  let sa = f64x2.extract_lane(sumAbs, 0) + f64x2.extract_lane(sumAbs, 1);
  let sl = f64x2.extract_lane(sumLn, 0) + f64x2.extract_lane(sumLn, 1);
  for (let i = 0; i < n; i++) {
    const x = load<f32>(input + (<usize>i << 2));
    const a = Mathf.abs(x);
    s += <f64>x;
    sa += <f64>a;
    sl += Math.log(<f64>max(a, ABS_FLOOR));
    if (a >= clipLevel) run++;
    else {
      if (run >= minRun) { runs++; clipped += run; }
      run = 0;
    }
  }
  if (run >= minRun) { runs++; clipped += run; }
  store<f64>(out, s);
  store<f64>(out, sa, 8);
  store<f64>(out, sl, 16);
  store<f64>(out, <f64>runs, 24);
  store<f64>(out, <f64>clipped, 32);
  return OK;
}

/**
 * One pass over `n` samples writing 5 f64 to `out`: Σx, Σ|x|, Σ ln max(|x|, 1e−10), the number of
 * clipping runs (≥ `minRun` consecutive samples with |x| ≥ `clipLevel`) and the samples in them.
 * The incremental stats fed the whole signal in one go (their state in a static region).
 */
export function signalStats(input: usize, n: i32, clipLevel: f32, minRun: i32, out: usize): i32 {
  if (n < 0 || minRun < 1) return BAD_ARGUMENT;
  const state = memory.data(64, 16);
  signalStatsInit(state);
  const body = n & ~3;
  signalStatsPush(state, input, body, clipLevel, minRun);
  return signalStatsFinish(state, input + (<usize>body << 2), n - body, clipLevel, minRun, out);
}

/** f64 slots of scratch spectrumAccumulate needs for an FFT of `fftSize` points. */
export function spectrumScratchSize(fftSize: i32): i32 {
  return fftSize * 4;
}

/**
 * Add the Hann-windowed power spectrum |X_k|², k = 0…N/2, of every frame starting at the i32 sample
 * indices in `starts` (frames that do not fit are skipped) to the f64 array `power`; N = `fftSize`,
 * a power of two. Radix-2 iterative FFT in f64. Returns the frames used.
 */
export function spectrumAccumulate(input: usize, n: i32, starts: usize, count: i32, fftSize: i32, scratch: usize, power: usize): i32 {
  if (fftSize < 4 || (fftSize & (fftSize - 1)) != 0 || count < 0 || n < 0) return BAD_ARGUMENT;
  const half = fftSize >> 1;
  const re = scratch;
  const im = re + (<usize>fftSize << 3);
  const cosTable = im + (<usize>fftSize << 3);
  const sinTable = cosTable + (<usize>half << 3);
  const window = sinTable + (<usize>half << 3);
  for (let k = 0; k < half; k++) {
    const angle = -2.0 * Math.PI * <f64>k / <f64>fftSize;
    store<f64>(cosTable + (<usize>k << 3), Math.cos(angle));
    store<f64>(sinTable + (<usize>k << 3), Math.sin(angle));
  }
  for (let i = 0; i < fftSize; i++) {
    store<f64>(window + (<usize>i << 3), 0.5 - 0.5 * Math.cos(2.0 * Math.PI * <f64>i / <f64>fftSize));
  }
  let bits = 0;
  while ((1 << bits) < fftSize) bits++;
  let used = 0;
  for (let f = 0; f < count; f++) {
    const start = load<i32>(starts + (<usize>f << 2));
    if (start < 0 || start + fftSize > n) continue;
    for (let i = 0; i < fftSize; i++) {
      // Bit-reversed load so the butterflies run in place.
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      store<f64>(re + (<usize>r << 3), <f64>load<f32>(input + (<usize>(start + i) << 2)) * load<f64>(window + (<usize>i << 3)));
      store<f64>(im + (<usize>r << 3), 0.0);
    }
    for (let size = 2; size <= fftSize; size <<= 1) {
      const halfSize = size >> 1;
      const stride = fftSize / size;
      for (let block = 0; block < fftSize; block += size) {
        for (let j = 0; j < halfSize; j++) {
          const wr = load<f64>(cosTable + (<usize>(j * stride) << 3));
          const wi = load<f64>(sinTable + (<usize>(j * stride) << 3));
          const p = re + (<usize>(block + j) << 3), q = re + (<usize>(block + j + halfSize) << 3);
          const pi = im + (<usize>(block + j) << 3), qi = im + (<usize>(block + j + halfSize) << 3);
          const tr = wr * load<f64>(q) - wi * load<f64>(qi);
          const ti = wr * load<f64>(qi) + wi * load<f64>(q);
          const ur = load<f64>(p), ui = load<f64>(pi);
          store<f64>(p, ur + tr);
          store<f64>(pi, ui + ti);
          store<f64>(q, ur - tr);
          store<f64>(qi, ui - ti);
        }
      }
    }
    for (let k = 0; k <= half; k++) {
      const a = load<f64>(re + (<usize>k << 3)), b = load<f64>(im + (<usize>k << 3));
      store<f64>(power + (<usize>k << 3), load<f64>(power + (<usize>k << 3)) + a * a + b * b);
    }
    used++;
  }
  return used;
}
