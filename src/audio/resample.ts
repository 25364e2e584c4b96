// Sample-rate conversion of int16 PCM: deepeval's linear resampler bit for bit (voice-metrics.md §L10) and a band-limited polyphase resampler.

/** Which resampler converts between a connector's rate and the engine's. */
export type ResamplerKind = "linear" | "band-limited";

/** Python's `round()` on a float: halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * deepeval's `resample_pcm16` (§L10), bit-exact: out_n = max(1, round_half_even(n·to/from)),
 * step = (n−1)/out_n (not (n−1)/(out_n−1)), out[i] = trunc(s[l]·(1−frac) + s[r]·frac). It has no
 * anti-aliasing filter (downsampling folds the band above the new Nyquist back in), and it
 * shortens the clip by a fraction of a sample; it exists so captures match the reference's.
 * Equal rates and empty input are returned unchanged (a copy).
 */
export function resamplePcm16Linear(pcm: Int16Array, fromRate: number, toRate: number): Int16Array {
  checkRates(fromRate, toRate);
  const n = pcm.length;
  if (n === 0 || fromRate === toRate) return pcm.slice();
  const outN = Math.max(1, roundHalfEven((n * toRate) / fromRate));
  const step = outN > 1 ? (n - 1) / outN : 0;
  const out = new Int16Array(outN);
  for (let i = 0; i < outN; i++) {
    const pos = i * step;
    const left = Math.trunc(pos);
    const frac = pos - left;
    const right = Math.min(left + 1, n - 1);
    out[i] = Math.trunc(pcm[left] * (1 - frac) + pcm[right] * frac);
  }
  return out;
}

function checkRates(fromRate: number, toRate: number): void {
  for (const [name, r] of [["fromRate", fromRate], ["toRate", toRate]] as const) {
    if (!Number.isInteger(r) || r <= 0) throw new RangeError(`${name} must be a positive integer (Hz), got ${r}`);
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Options of the band-limited resampler. */
export interface BandLimitedOptions {
  /**
   * Zero crossings of the windowed sinc on each side of its centre: longer = sharper transition band.
   * @defaultValue 16
   */
  zeroCrossings?: number;
  /**
   * Pass-band edge as a fraction of the lower Nyquist frequency (the filter rolls off above it).
   * @defaultValue 0.92
   */
  passband?: number;
  /**
   * Kaiser window β (stop-band attenuation ≈ 8.7·β dB for β near 8).
   * @defaultValue 9
   */
  kaiserBeta?: number;
}

/** Defaults of the band-limited resampler. */
export const DEFAULT_BAND_LIMITED_OPTIONS: Readonly<Required<BandLimitedOptions>> = Object.freeze({
  zeroCrossings: 16,
  passband: 0.92,
  kaiserBeta: 9,
});

/** Band-limited resampler options overlaid on DEFAULT_BAND_LIMITED_OPTIONS. */
export function resolveBandLimitedOptions(o: BandLimitedOptions = {}): Required<BandLimitedOptions> {
  const r = { ...DEFAULT_BAND_LIMITED_OPTIONS, ...o };
  if (!Number.isInteger(r.zeroCrossings) || r.zeroCrossings < 2 || r.zeroCrossings > 128) throw new RangeError(`zeroCrossings must be an integer in [2, 128], got ${r.zeroCrossings}`);
  if (!(r.passband > 0 && r.passband <= 1)) throw new RangeError(`passband must be in (0, 1], got ${r.passband}`);
  if (!(r.kaiserBeta >= 0 && r.kaiserBeta <= 30)) throw new RangeError(`kaiserBeta must be in [0, 30], got ${r.kaiserBeta}`);
  return r;
}

/** Zeroth-order modified Bessel function of the first kind (power series; converges fast for β ≤ 30). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** Phase tables are kept below this many coefficients; beyond it coefficients are computed per sample. */
const MAX_TABLE_COEFFICIENTS = 1 << 20;

/**
 * A streaming polyphase windowed-sinc resampler (Kaiser window) for any pair of integer rates.
 * Output sample j sits at input time j·from/to and is Σ x[n]·h(n − t): h is a low-pass at the lower
 * of the two Nyquist frequencies (times `passband`), so downsampling does not alias. Samples beyond
 * the input are zeros. `push` returns what the input seen so far determines; `flush` the rest, so a
 * stream cut in any chunks gives the same samples as one `resamplePcm16` call.
 */
export class BandLimitedResampler {
  readonly fromRate: number;
  readonly toRate: number;
  private readonly up: number;
  private readonly down: number;
  private readonly half: number;
  private readonly cutoff: number;
  private readonly beta: number;
  private readonly i0Beta: number;
  private readonly table: Float64Array | null;
  private readonly taps: number;
  /** Input kept for filtering: samples [base, base + buf.length) of the stream. */
  private buf = new Float64Array(0);
  private base = 0;
  private received = 0;
  /** Next output index. */
  private j = 0;
  private flushed = false;

  constructor(fromRate: number, toRate: number, options: BandLimitedOptions = {}) {
    checkRates(fromRate, toRate);
    const o = resolveBandLimitedOptions(options);
    this.fromRate = fromRate;
    this.toRate = toRate;
    const g = gcd(fromRate, toRate);
    this.up = toRate / g;
    this.down = fromRate / g;
    // Cut-off in cycles per input sample: the lower Nyquist, narrowed to leave a transition band.
    this.cutoff = 0.5 * Math.min(1, toRate / fromRate) * o.passband;
    this.half = Math.ceil(o.zeroCrossings / (2 * this.cutoff));
    this.taps = 2 * this.half;
    this.beta = o.kaiserBeta;
    this.i0Beta = besselI0(o.kaiserBeta);
    if (this.up * this.taps <= MAX_TABLE_COEFFICIENTS) {
      this.table = new Float64Array(this.up * this.taps);
      for (let p = 0; p < this.up; p++) this.fillPhase(p, this.table, p * this.taps);
    } else {
      this.table = null;
    }
  }

  /** Coefficients for the input samples n0−half+1 … n0+half of an output at n0 + p/up. */
  private fillPhase(p: number, into: Float64Array, at: number): void {
    const frac = p / this.up;
    for (let k = 0; k < this.taps; k++) {
      const tau = k - this.half + 1 - frac;
      into[at + k] = this.kernel(tau);
    }
  }

  private kernel(tau: number): number {
    const r = tau / this.half;
    if (r <= -1 || r >= 1) return 0;
    const x = 2 * this.cutoff * tau;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = besselI0(this.beta * Math.sqrt(1 - r * r)) / this.i0Beta;
    return 2 * this.cutoff * sinc * w;
  }

  /** Feed input; returns the output samples it completes. */
  push(chunk: Int16Array): Int16Array {
    if (this.flushed) throw new Error("BandLimitedResampler: push after flush");
    const keepFrom = Math.max(this.base, Math.floor((this.j * this.down) / this.up) - this.half + 1);
    const drop = keepFrom - this.base;
    const next = new Float64Array(this.buf.length - drop + chunk.length);
    next.set(this.buf.subarray(drop));
    for (let i = 0; i < chunk.length; i++) next[this.buf.length - drop + i] = chunk[i];
    this.buf = next;
    this.base = keepFrom;
    this.received += chunk.length;
    // An output needs input up to n0 + half; the last index with n0 + half < received is ready.
    return this.produce((n0) => n0 + this.half < this.received);
  }

  /** The remaining output (input beyond the end taken as zeros): ceil(n·to/from) samples in all. */
  flush(): Int16Array {
    if (this.flushed) return new Int16Array(0);
    this.flushed = true;
    return this.produce((n0, j) => j * this.down < this.received * this.up && n0 >= 0);
  }

  private produce(ready: (n0: number, j: number) => boolean): Int16Array {
    const out: number[] = [];
    const coeffs = this.table ? null : new Float64Array(this.taps);
    for (;;) {
      const num = this.j * this.down;
      const n0 = Math.floor(num / this.up);
      if (!ready(n0, this.j)) break;
      const p = num - n0 * this.up;
      let h: Float64Array;
      let at = 0;
      if (this.table) {
        h = this.table;
        at = p * this.taps;
      } else {
        this.fillPhase(p, coeffs!, 0);
        h = coeffs!;
      }
      let acc = 0;
      const first = n0 - this.half + 1;
      for (let k = 0; k < this.taps; k++) {
        const idx = first + k - this.base;
        if (idx >= 0 && idx < this.buf.length) acc += this.buf[idx] * h[at + k];
      }
      const v = Math.round(acc);
      out.push(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
      this.j++;
    }
    return Int16Array.from(out);
  }
}

/** Band-limited resampling of a whole clip (see BandLimitedResampler). Equal rates are returned unchanged (a copy). */
export function resamplePcm16(pcm: Int16Array, fromRate: number, toRate: number, options: BandLimitedOptions = {}): Int16Array {
  checkRates(fromRate, toRate);
  if (fromRate === toRate) return pcm.slice();
  const r = new BandLimitedResampler(fromRate, toRate, options);
  const a = r.push(pcm);
  const b = r.flush();
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Resample with the chosen kind. */
export function resampleWith(kind: ResamplerKind, pcm: Int16Array, fromRate: number, toRate: number): Int16Array {
  return kind === "linear" ? resamplePcm16Linear(pcm, fromRate, toRate) : resamplePcm16(pcm, fromRate, toRate);
}
