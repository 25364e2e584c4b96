// Stream-integrity kernels of the voxmetrics profile: block levels, runs of digital silence with their edge levels, speech-only WADA sums and repeated segments at any offset (acoustics.md §5.1, §5.3).
import { OK, BAD_ARGUMENT } from "../../src/dsp/kernel-status";

/** Energy floor of a level in dB, so digital silence reads −200 dB rather than −∞. */
const ENERGY_FLOOR: f64 = 1e-20;
/** Multiplier of the polynomial rolling hash of quantised samples (an odd 32-bit constant). */
export const INTEGRITY_HASH_BASE: i32 = 0x01000193;
/** Fibonacci hashing constant that spreads a rolling hash over the table's slots. */
export const INTEGRITY_SLOT_MIX: u32 = 0x9e3779b1;

/** Mean-square level (dB re full scale², floored at −200 dB) of `len` samples whose squares sum to `e`; −200 dB when len ≤ 0. */
export function integrityLevelDb(e: f64, len: i32): f64 {
  if (len <= 0) return 10 * Math.log10(ENERGY_FLOOR);
  return 10 * Math.log10(e / <f64>len + ENERGY_FLOOR);
}

/** Blocks of `blockLength` samples (the last one partial) in `n` samples. */
export function integrityBlockCount(n: i32, blockLength: i32): i32 {
  if (n <= 0 || blockLength < 1) return 0;
  return (n + blockLength - 1) / blockLength;
}

/** Mean-square level (dB re full scale², floored at −200 dB) of consecutive blocks; the last block may be partial. Returns the block count. */
export function integrityBlockLevels(input: usize, n: i32, blockLength: i32, out: usize): i32 {
  if (n < 0 || blockLength < 1) return BAD_ARGUMENT;
  const blocks = integrityBlockCount(n, blockLength);
  for (let b = 0; b < blocks; b++) {
    const start = b * blockLength;
    const end = min(n, start + blockLength);
    let e: f64 = 0;
    for (let i = start; i < end; i++) {
      const x = <f64>load<f32>(input + (<usize>i << 2));
      e += x * x;
    }
    store<f32>(out + (<usize>b << 2), <f32>integrityLevelDb(e, end - start));
  }
  return blocks;
}

/** Mean-square level (dB) of samples [start, end), floored; −200 dB for an empty range. */
@inline function rangeLevelDb(input: usize, start: i32, end: i32): f64 {
  let e: f64 = 0;
  for (let i = start; i < end; i++) {
    const x = <f64>load<f32>(input + (<usize>i << 2));
    e += x * x;
  }
  return integrityLevelDb(e, end - start);
}

/**
 * Runs of at least `minRun` exact-zero samples. For each run (at most `capacity`) writes its
 * [start, end) to `outRuns` (i32 pairs) and the mean-square levels (dB) of the `edgeLength`
 * samples just before and just after it to `outEdges` (f32 pairs). Returns the number of runs.
 */
export function integrityZeroRuns(input: usize, n: i32, minRun: i32, edgeLength: i32, outRuns: usize, outEdges: usize, capacity: i32): i32 {
  if (n < 0 || minRun < 1 || edgeLength < 1 || capacity < 0) return BAD_ARGUMENT;
  let count = 0;
  let i = 0;
  while (i < n && count < capacity) {
    if (load<f32>(input + (<usize>i << 2)) != 0) { i++; continue; }
    let j = i;
    while (j < n && load<f32>(input + (<usize>j << 2)) == 0) j++;
    if (j - i >= minRun) {
      store<i32>(outRuns + (<usize>(2 * count) << 2), i);
      store<i32>(outRuns + (<usize>(2 * count + 1) << 2), j);
      store<f32>(outEdges + (<usize>(2 * count) << 2), <f32>rangeLevelDb(input, max(0, i - edgeLength), i));
      store<f32>(outEdges + (<usize>(2 * count + 1) << 2), <f32>rangeLevelDb(input, j, min(n, j + edgeLength)));
      count++;
    }
    i = j;
  }
  return count;
}

/**
 * WADA sums over the sample ranges [start, end) given as `rangeCount` i32 pairs at `ranges`,
 * exact-zero samples excluded: writes 3 f64 to `out` (samples counted, Σ|x|, Σ ln|x|).
 */
export function integrityWadaSums(input: usize, n: i32, ranges: usize, rangeCount: i32, out: usize): i32 {
  if (n < 0 || rangeCount < 0) return BAD_ARGUMENT;
  let count: f64 = 0, sumAbs: f64 = 0, sumLn: f64 = 0;
  for (let r = 0; r < rangeCount; r++) {
    const start = max(0, load<i32>(ranges + (<usize>(2 * r) << 2)));
    const end = min(n, load<i32>(ranges + (<usize>(2 * r + 1) << 2)));
    for (let i = start; i < end; i++) {
      const a = Math.abs(<f64>load<f32>(input + (<usize>i << 2)));
      if (a == 0) continue;
      count += 1;
      sumAbs += a;
      sumLn += Math.log(a);
    }
  }
  store<f64>(out, count);
  store<f64>(out + 8, sumAbs);
  store<f64>(out + 16, sumLn);
  return OK;
}

/** Quantised sample: floor(x · scale). */
@inline export function integrityQuantize(input: usize, i: i32, scale: f32): i32 {
  return <i32>Mathf.floor(load<f32>(input + (<usize>i << 2)) * scale);
}

/** B^k with 32-bit wrap-around. */
export function integrityHashPower(k: i32): i32 {
  let p: i32 = 1;
  for (let i = 0; i < k; i++) p = p * INTEGRITY_HASH_BASE;
  return p;
}

/**
 * Length (samples, a multiple of `blockLength`) over which x[i] ≈ x[i − lag] from `start` on: whole
 * blocks match while Σ(x[i] − x[i−lag])² ≤ `matchRatio` · Σx[i]² (blocks of digital silence on
 * both sides match too).
 */
export function integrityMatchLength(input: usize, n: i32, start: i32, lag: i32, blockLength: i32, matchRatio: f64): i32 {
  let b = start;
  while (b + blockLength <= n) {
    let e: f64 = 0, d: f64 = 0;
    for (let i = b; i < b + blockLength; i++) {
      const x = <f64>load<f32>(input + (<usize>i << 2));
      const y = <f64>load<f32>(input + (<usize>(i - lag) << 2));
      e += x * x;
      d += (x - y) * (x - y);
    }
    if (d > matchRatio * e) break;
    b += blockLength;
  }
  return b - start;
}

/** Where a match at `lag` found at `start` begins: whole blocks before `start` (at most `lag` samples back, never before `floor`) that match too. */
export function integrityMatchStart(input: usize, start: i32, lag: i32, floor: i32, blockLength: i32, matchRatio: f64): i32 {
  let b = start;
  while (b - blockLength >= max(lag, floor) && start - (b - blockLength) <= lag) {
    let e: f64 = 0, d: f64 = 0;
    for (let i = b - blockLength; i < b; i++) {
      const x = <f64>load<f32>(input + (<usize>i << 2));
      const y = <f64>load<f32>(input + (<usize>(i - lag) << 2));
      e += x * x;
      d += (x - y) * (x - y);
    }
    if (d > matchRatio * e) break;
    b -= blockLength;
  }
  return b;
}

/** Bytes of the hash table repeatScan needs for 2^`tableBits` slots. */
export function integrityRepeatTableSize(tableBits: i32): i32 {
  return tableBits < 1 || tableBits > 24 ? 0 : 8 << tableBits;
}

/**
 * Repeated segments at any offset. A rolling hash of `window` quantised samples (floor(x·`scale`))
 * is kept for every position whose Σ|q| reaches `gate`; a direct-mapped table of 2^`tableBits`
 * slots remembers the last position of each hash. When position p finds the same hash at p − lag
 * with `minLag` ≤ lag ≤ `maxLag`, the match is verified block by block forwards (matchLength) and
 * backwards (matchStart: a repeat whose first windows were too quiet to hash); a run of at least
 * `minRunFraction` · lag samples is a repeat: (start, lag, run) is written to `out` (i32 triples,
 * at most `capacity`). Either way no hash hit is examined again before p + max(forward run, 1).
 * Returns the count.
 */
export function integrityRepeatScan(
  input: usize, n: i32, window: i32, scale: f32, gate: i32, minLag: i32, maxLag: i32,
  blockLength: i32, matchRatio: f64, minRunFraction: f64, table: usize, tableBits: i32, out: usize, capacity: i32,
): i32 {
  if (n < 0 || window < 1 || minLag < 1 || maxLag < minLag || blockLength < 1 || tableBits < 1 || tableBits > 24 || capacity < 0) return BAD_ARGUMENT;
  const slots = 1 << tableBits;
  for (let s = 0; s < slots; s++) {
    store<i32>(table + (<usize>(2 * s) << 2), 0);
    store<i32>(table + (<usize>(2 * s + 1) << 2), -1);
  }
  if (n < window) return 0;
  const top = integrityHashPower(window - 1);
  let h: i32 = 0, mass: i32 = 0;
  for (let j = 0; j < window; j++) {
    const q = integrityQuantize(input, j, scale);
    h = h * INTEGRITY_HASH_BASE + q;
    mass += abs(q);
  }
  let count = 0;
  let skipUntil = 0, lastEnd = 0;
  for (let p = 0; ; p++) {
    if (mass >= gate) {
      const slot = <i32>((<u32>h * INTEGRITY_SLOT_MIX) >>> (32 - tableBits));
      const at = table + (<usize>(2 * slot) << 2);
      const prev = load<i32>(at + 4);
      if (p >= skipUntil && prev >= 0 && load<i32>(at) == h && count < capacity) {
        const lag = p - prev;
        if (lag >= minLag && lag <= maxLag) {
          const forward = integrityMatchLength(input, n, p, lag, blockLength, matchRatio);
          const start = integrityMatchStart(input, p, lag, lastEnd, blockLength, matchRatio);
          const run = p + forward - start;
          if (<f64>run >= minRunFraction * <f64>lag) {
            const o = out + (<usize>(3 * count) << 2);
            store<i32>(o, start);
            store<i32>(o + 4, lag);
            store<i32>(o + 8, run);
            count++;
            lastEnd = start + run;
          }
          // A verified repeat is not sought again inside itself; a failed one is not re-verified along the part that matched.
          skipUntil = p + max(forward, 1);
        }
      }
      store<i32>(at, h);
      store<i32>(at + 4, p);
    }
    if (p + window >= n) break;
    const qOut = integrityQuantize(input, p, scale);
    const qIn = integrityQuantize(input, p + window, scale);
    h = (h - qOut * top) * INTEGRITY_HASH_BASE + qIn;
    mass += abs(qIn) - abs(qOut);
  }
  return count;
}
