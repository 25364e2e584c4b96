// Readable float64 twins of the stream-integrity kernels (assembly/kernels/integrity.ts): block levels, zero runs with edge levels, speech-only WADA sums, repeated segments.

/** Digital silence reads −200 dB: 10·log10(mean x² + 1e−20). */
const ENERGY_FLOOR = 1e-20;
const HASH_BASE = 0x01000193;
const SLOT_MIX = 0x9e3779b1;

/** Mean-square level (dB) of x[start, end); −200 dB for an empty range. */
function levelDb(x: ArrayLike<number>, start: number, end: number): number {
  if (end <= start) return 10 * Math.log10(ENERGY_FLOOR);
  let e = 0;
  for (let i = start; i < end; i++) e += x[i] * x[i];
  return 10 * Math.log10(e / (end - start) + ENERGY_FLOOR);
}

/** 10·log10(mean x² + 1e−20) of consecutive blocks of `blockLength` samples, the last one partial. */
export function blockLevelsReference(x: ArrayLike<number>, blockLength: number): number[] {
  const out: number[] = [];
  for (let s = 0; s < x.length; s += blockLength) out.push(levelDb(x, s, Math.min(x.length, s + blockLength)));
  return out;
}

export interface ZeroRunReference {
  start: number;
  end: number;
  beforeDb: number;
  afterDb: number;
}

/** Runs of ≥ minRun exact zeros, with the levels of the edgeLength samples before and after each. */
export function zeroRunsReference(x: ArrayLike<number>, minRun: number, edgeLength: number): ZeroRunReference[] {
  const out: ZeroRunReference[] = [];
  for (let i = 0; i < x.length; ) {
    if (x[i] !== 0) { i++; continue; }
    let j = i;
    while (j < x.length && x[j] === 0) j++;
    if (j - i >= minRun) out.push({ start: i, end: j, beforeDb: levelDb(x, Math.max(0, i - edgeLength), i), afterDb: levelDb(x, j, Math.min(x.length, j + edgeLength)) });
    i = j;
  }
  return out;
}

/** WADA sums over sample ranges with exact zeros left out: [count, Σ|x|, Σ ln|x|] (Kim & Stern 2008, acoustics.md §5.1). */
export function wadaSumsReference(x: ArrayLike<number>, ranges: ReadonlyArray<[number, number]>): [number, number, number] {
  let count = 0, sumAbs = 0, sumLn = 0;
  for (const [s, e] of ranges) {
    for (let i = Math.max(0, s); i < Math.min(x.length, e); i++) {
      const a = Math.abs(x[i]);
      if (a === 0) continue;
      count++;
      sumAbs += a;
      sumLn += Math.log(a);
    }
  }
  return [count, sumAbs, sumLn];
}

export interface RepeatScanParams {
  window: number;
  scale: number;
  gate: number;
  minLag: number;
  maxLag: number;
  blockLength: number;
  matchRatio: number;
  minRunFraction: number;
  tableBits: number;
}

export interface RepeatReference {
  start: number;
  lag: number;
  run: number;
}

/**
 * Repeats at any offset: a polynomial rolling hash (base 0x01000193, 32-bit wrap) of `window`
 * samples quantised as floor(x·scale) (the product in float32, as the kernel computes it), a
 * direct-mapped table of the last position per hash, block-wise verification of each hit forwards
 * and backwards (never back into an earlier repeat).
 */
export function repeatScanReference(x: Float32Array, p: RepeatScanParams): RepeatReference[] {
  const n = x.length;
  const q = (i: number) => Math.floor(Math.fround(x[i] * Math.fround(p.scale)));
  const slots = 1 << p.tableBits;
  const tableHash = new Int32Array(slots);
  const tablePos = new Int32Array(slots).fill(-1);
  const out: RepeatReference[] = [];
  if (n < p.window) return out;
  let top = 1;
  for (let i = 0; i < p.window - 1; i++) top = Math.imul(top, HASH_BASE);
  let h = 0, mass = 0;
  for (let j = 0; j < p.window; j++) {
    h = (Math.imul(h, HASH_BASE) + q(j)) | 0;
    mass += Math.abs(q(j));
  }
  const matchLength = (start: number, lag: number): number => {
    let b = start;
    while (b + p.blockLength <= n) {
      let e = 0, d = 0;
      for (let i = b; i < b + p.blockLength; i++) {
        e += x[i] * x[i];
        d += (x[i] - x[i - lag]) * (x[i] - x[i - lag]);
      }
      if (d > p.matchRatio * e) break;
      b += p.blockLength;
    }
    return b - start;
  };
  const matchStart = (start: number, lag: number, floor: number): number => {
    let b = start;
    while (b - p.blockLength >= Math.max(lag, floor) && start - (b - p.blockLength) <= lag) {
      let e = 0, d = 0;
      for (let i = b - p.blockLength; i < b; i++) {
        e += x[i] * x[i];
        d += (x[i] - x[i - lag]) * (x[i] - x[i - lag]);
      }
      if (d > p.matchRatio * e) break;
      b -= p.blockLength;
    }
    return b;
  };
  let skipUntil = 0, lastEnd = 0;
  for (let pos = 0; ; pos++) {
    if (mass >= p.gate) {
      const slot = Math.imul(h, SLOT_MIX | 0) >>> (32 - p.tableBits);
      const prev = tablePos[slot];
      if (pos >= skipUntil && prev >= 0 && tableHash[slot] === h) {
        const lag = pos - prev;
        if (lag >= p.minLag && lag <= p.maxLag) {
          const forward = matchLength(pos, lag);
          const start = matchStart(pos, lag, lastEnd);
          const run = pos + forward - start;
          if (run >= p.minRunFraction * lag) {
            out.push({ start, lag, run });
            lastEnd = start + run;
          }
          skipUntil = pos + Math.max(forward, 1);
        }
      }
      tableHash[slot] = h;
      tablePos[slot] = pos;
    }
    if (pos + p.window >= n) break;
    const qOut = q(pos), qIn = q(pos + p.window);
    h = (Math.imul((h - Math.imul(qOut, top)) | 0, HASH_BASE) + qIn) | 0;
    mass += Math.abs(qIn) - Math.abs(qOut);
  }
  return out;
}
