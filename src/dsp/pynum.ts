// Python-exact statistics.mean / statistics.pstdev (CPython 3.11): exact rational arithmetic, one final rounding (voice-metrics.md §4.2, §7.4).
//
// Every finite double is m·2^e with integer m, so with the smallest exponent E of the data all values
// are integers V_i·2^E. Then mean = (ΣV / n)·2^E and pstdev = sqrt(n·ΣV² − (ΣV)²)/n·2^E exactly;
// only the conversion of that exact value to a double rounds (to nearest, ties to even), which is what
// Python's Fraction arithmetic and its correctly rounded square root of a fraction do.

/** An exact dyadic rational: value = integer·2^exponent. */
interface Dyadic {
  integer: bigint;
  exponent: number;
}

const bits = new DataView(new ArrayBuffer(8));

/** A finite double as integer·2^exponent, the integer being its signed 53-bit significand. */
function decompose(value: number): Dyadic {
  bits.setFloat64(0, value);
  const high = bits.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const significand = (high & 0xfffff) * 2 ** 32 + bits.getUint32(4) + (biased === 0 ? 0 : 2 ** 52);
  return { integer: BigInt(value < 0 ? -significand : significand), exponent: (biased === 0 ? 1 : biased) - 1075 };
}

/** Bits of n ≥ 0 (0 for 0). */
function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return 4 * (hex.length - 1) + 32 - Math.clz32(parseInt(hex[0], 16));
}

/** x·2^k without intermediate overflow or underflow (exact whenever the result is representable). */
function scaleByPowerOfTwo(x: number, k: number): number {
  while (k > 1000) {
    x *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    x *= 2 ** -1000;
    k += 1000;
  }
  return x * 2 ** k;
}

/**
 * The double nearest to (q + δ)·2^exponent, ties to even, where 0 ≤ δ < 1 and δ > 0 iff `inexact`.
 * Callers pass q ≥ 2^54, so at least two bits are dropped and δ only acts as a sticky bit; results
 * in the subnormal range are rounded at 2^−1074.
 */
function roundToDouble(q: bigint, inexact: boolean, exponent: number): number {
  const drop = Math.max(bitLength(q) - 53, -1074 - exponent);
  let kept = q >> BigInt(drop);
  const rest = q - (kept << BigInt(drop));
  const half = 1n << BigInt(drop - 1);
  if (rest > half || (rest === half && (inexact || (kept & 1n) === 1n))) kept += 1n;
  return scaleByPowerOfTwo(Number(kept), exponent + drop);
}

/** numerator/denominator·2^exponent correctly rounded; denominator > 0. */
function divideToDouble(numerator: bigint, denominator: bigint, exponent: number): number {
  if (numerator === 0n) return 0;
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const shift = Math.max(0, 55 + bitLength(denominator) - bitLength(magnitude));
  const scaled = magnitude << BigInt(shift);
  const q = scaled / denominator;
  const value = roundToDouble(q, q * denominator !== scaled, exponent - shift);
  return negative ? -value : value;
}

/** floor(sqrt(n)) for n ≥ 0: Newton's iteration from a start above the root (a float estimate when n fits a double). */
function integerSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  const estimate = Math.sqrt(Number(n));
  let x = estimate < 2 ** 500 ? BigInt(Math.ceil(estimate * (1 + 2 ** -40))) + 1n : 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** sqrt(a)/n·2^exponent correctly rounded; a ≥ 0, n > 0. */
function sqrtDivideToDouble(a: bigint, n: bigint, exponent: number): number {
  if (a === 0n) return 0;
  // Scale a by 4^t so that sqrt(a·4^t)/n ≥ 2^54: the quotient then carries at least 55 bits.
  const t = Math.max(0, Math.ceil((2 * bitLength(n) + 110 - bitLength(a)) / 2));
  const scaled = a << BigInt(2 * t);
  const root = integerSqrt(scaled);
  const q = root / n;
  const inexact = root * root !== scaled || q * n !== root;
  return roundToDouble(q, inexact, exponent - t);
}

/** Σ values exactly (finite doubles), over the smallest exponent of its terms. */
function sumExactly(values: ArrayLike<number>): Dyadic {
  const parts: Dyadic[] = [];
  let exponent = Infinity;
  for (let i = 0; i < values.length; i++) {
    if (values[i] === 0) continue;
    const part = decompose(values[i]);
    parts.push(part);
    exponent = Math.min(exponent, part.exponent);
  }
  if (parts.length === 0) return { integer: 0n, exponent: 0 };
  let integer = 0n;
  for (const p of parts) integer += p.integer << BigInt(p.exponent - exponent);
  return { integer, exponent };
}

/** Σ values² exactly (finite doubles), as a BigInt sum. */
function sumSquaresExactly(values: ArrayLike<number>): Dyadic {
  const parts = Array.from(values, decompose).filter((p) => p.integer !== 0n);
  if (parts.length === 0) return { integer: 0n, exponent: 0 };
  const exponent = Math.min(...parts.map((p) => p.exponent));
  let integer = 0n;
  for (const p of parts) integer += (p.integer * p.integer) << BigInt(2 * (p.exponent - exponent));
  return { integer, exponent: 2 * exponent };
}

/**
 * An exact running sum of doubles: Shewchuk's grow-expansion (the msum of Python's math.fsum) keeps
 * non-overlapping partials whose sum is exact, barring overflow. Non-overlapping doubles span at
 * most 2098 bits, so 48 partials always suffice.
 */
class ExactSum {
  readonly partials = new Float64Array(48);
  count = 0;

  reset(): this {
    this.count = 0;
    return this;
  }

  add(value: number): void {
    let x = value;
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      let y = this.partials[i];
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) this.partials[kept++] = lo;
      x = hi;
    }
    this.partials[kept] = x;
    this.count = kept + 1;
  }

  exact(): Dyadic {
    return sumExactly(this.partials.subarray(0, this.count));
  }
}

/** Reused by every call (JS is single-threaded per isolate, and nothing here re-enters). */
const sumScratch = new ExactSum();
const squaresScratch = new ExactSum();

/** Dekker's splitter 2^27 + 1: a double splits into two 26-bit halves whose products are exact. */
const SPLITTER = 134217729;
/** Below this magnitude squares and their error terms stay far from overflow; above 1/this, from underflow. */
const SAFE_MAGNITUDE = 2 ** 480;

/** True when `value` is 0 or within [2^−480, 2^480], where the float expansions below are exact. */
function inSafeRange(value: number): boolean {
  const m = Math.abs(value);
  return m === 0 || (m <= SAFE_MAGNITUDE && m >= 1 / SAFE_MAGNITUDE);
}

/** True when every value is in the safe range of the float expansions. */
function inExpansionRange(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!inSafeRange(values[i])) return false;
  return true;
}

/** Adds v and v² (v in the safe range) to the expansions: v² as its rounded value and exact error (Dekker's product). */
function addMoments(sum: ExactSum, squares: ExactSum, v: number): void {
  sum.add(v);
  const square = v * v;
  const split = SPLITTER * v;
  const high = split - (split - v);
  const low = v - high;
  squares.add(square);
  squares.add(high * high - square + 2 * high * low + low * low);
}

/**
 * Exact Σv and Σv². In the usual range the sums are carried as float expansions (v² split into
 * its rounded value and exact error by Dekker's product) and only the few partials become BigInts;
 * otherwise every value is converted.
 */
function exactMoments(values: ArrayLike<number>, withSquares: boolean): { sum: Dyadic; squares: Dyadic } {
  if (!inExpansionRange(values)) {
    return { sum: sumExactly(values), squares: withSquares ? sumSquaresExactly(values) : { integer: 0n, exponent: 0 } };
  }
  const sum = sumScratch.reset();
  const squares = squaresScratch.reset();
  for (let i = 0; i < values.length; i++) {
    if (withSquares) addMoments(sum, squares, values[i]);
    else sum.add(values[i]);
  }
  return { sum: sum.exact(), squares: squares.exact() };
}

function allFinite(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

/**
 * Python's `statistics.mean` of doubles: the exact mean rounded once. Non-finite inputs behave as in
 * Python (their float sum divided by n). Throws a RangeError for no values, as Python raises.
 */
export function pyMean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) throw new RangeError("pyMean: mean requires at least one data point");
  if (!allFinite(values)) {
    let total = 0;
    for (let i = 0; i < n; i++) if (!Number.isFinite(values[i])) total += values[i];
    return total / n;
  }
  return meanOf(n, exactMoments(values, false).sum);
}

/** The exact mean Σv / n rounded once. */
function meanOf(n: number, sum: Dyadic): number {
  return divideToDouble(sum.integer, BigInt(n), sum.exponent);
}

/**
 * Python's `statistics.pstdev` of doubles (population standard deviation): the exact
 * sqrt(Σ(v − mean)²/n), rounded once. Throws a RangeError for no values or a non-finite value
 * (Python raises for both).
 */
export function pyPstdev(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) throw new RangeError("pyPstdev: pstdev requires at least one data point");
  if (!allFinite(values)) throw new RangeError("pyPstdev: values must be finite");
  const { sum, squares } = exactMoments(values, true);
  return pstdevOf(n, sum, squares);
}

/** The exact population standard deviation of n values with exact sums Σv and Σv², rounded once. */
function pstdevOf(n: number, sum: Dyadic, squares: Dyadic): number {
  // With Σv = X·2^x and Σv² = Y·2^y: Σ(v − mean)²/n = (n·Σv² − (Σv)²)/n², so over the common even
  // exponent 2e, pstdev = sqrt(n·Y·2^(y−2e) − X²·2^(2x−2e))/n·2^e.
  const count = BigInt(n);
  const half = Math.floor(Math.min(squares.exponent, 2 * sum.exponent) / 2);
  const a = ((count * squares.integer) << BigInt(squares.exponent - 2 * half)) - ((sum.integer * sum.integer) << BigInt(2 * sum.exponent - 2 * half));
  return sqrtDivideToDouble(a, count, half);
}

/** a + b exactly. */
function addDyadic(a: Dyadic, b: Dyadic): Dyadic {
  if (a.integer === 0n) return b;
  if (b.integer === 0n) return a;
  const exponent = Math.min(a.exponent, b.exponent);
  return { integer: (a.integer << BigInt(a.exponent - exponent)) + (b.integer << BigInt(b.exponent - exponent)), exponent };
}

/**
 * Python's `statistics.mean` and `statistics.pstdev` of doubles given one at a time, in constant
 * memory: the exact Σv and Σv² are kept (as float expansions for values in [2^−480, 2^480] and 0, as
 * BigInt dyadics for the others), so mean() and pstdev() equal pyMean and pyPstdev of every value
 * added, bit for bit, whatever the order.
 */
export class PyMoments {
  /** Values added so far. */
  count = 0;
  private readonly sum = new ExactSum();
  private readonly squares = new ExactSum();
  /** Exact sums of the finite values outside the expansions' range. */
  private wideSum: Dyadic = { integer: 0n, exponent: 0 };
  private wideSquares: Dyadic = { integer: 0n, exponent: 0 };
  /** Float sum of the non-finite values (what Python's mean gives when there are any). */
  private nonFiniteSum = 0;
  private nonFinite = false;

  add(value: number): void {
    this.count++;
    if (!Number.isFinite(value)) {
      this.nonFinite = true;
      this.nonFiniteSum += value;
    } else if (inSafeRange(value)) {
      addMoments(this.sum, this.squares, value);
    } else {
      const part = decompose(value);
      this.wideSum = addDyadic(this.wideSum, part);
      this.wideSquares = addDyadic(this.wideSquares, { integer: part.integer * part.integer, exponent: 2 * part.exponent });
    }
  }

  /** pyMean of the values added; a RangeError when there are none. */
  mean(): number {
    const n = this.count;
    if (n === 0) throw new RangeError("pyMean: mean requires at least one data point");
    if (this.nonFinite) return this.nonFiniteSum / n;
    return meanOf(n, addDyadic(this.sum.exact(), this.wideSum));
  }

  /** pyPstdev of the values added; a RangeError when there are none or one is not finite. */
  pstdev(): number {
    const n = this.count;
    if (n === 0) throw new RangeError("pyPstdev: pstdev requires at least one data point");
    if (this.nonFinite) throw new RangeError("pyPstdev: values must be finite");
    return pstdevOf(n, addDyadic(this.sum.exact(), this.wideSum), addDyadic(this.squares.exact(), this.wideSquares));
  }
}
