// Readable twin of the parity kernels (frames, pitch, fingerprint): deepeval's analyze_audio primitives written straight from voice-metrics.md §3.2–3.7.
import type { FrameSummary } from "../parity.js";

/** §3.1 constants. */
const SILENCE_RMS = 300.0;
const CLIP_LEVEL = 32760;
const VOICING_THRESHOLD = 0.15;

/** Python int / int for non-negative integers: the exact quotient rounded once to the nearest double (ties to even). */
export function quotientReference(numerator: bigint, denominator: bigint): number {
  if (numerator < 2n ** 53n) return Number(numerator) / Number(denominator);
  // A quotient of ≥ 55 bits plus a sticky bit for the remainder makes Number() round exactly once.
  const shift = Math.max(0, 56 - numerator.toString(2).length + denominator.toString(2).length);
  const scaled = numerator << BigInt(shift);
  let q = scaled / denominator;
  if (q * denominator !== scaled) q |= 1n;
  return Number(q) / 2 ** shift;
}

/** Exact Σ x² (§3.2). */
export function sumSquaresReference(x: ArrayLike<number>): bigint {
  let sum = 0n;
  for (let i = 0; i < x.length; i++) sum += BigInt(x[i]) * BigInt(x[i]);
  return sum;
}

/** RMS(seq) of §3.2: sqrt(exact Σ x² / len), 0.0 for an empty sequence. */
export function rmsReference(x: ArrayLike<number>): number {
  return x.length === 0 ? 0.0 : Math.sqrt(quotientReference(sumSquaresReference(x), BigInt(x.length)));
}

/** frames(width) of §3.2: consecutive chunks, the last partial one kept only if its length ≥ floor(width / 2). */
function framesReference(x: Int16Array, width: number): Int16Array[] {
  const frames: Int16Array[] = [];
  for (let start = 0; start < x.length; start += width) {
    const frame = x.subarray(start, start + width);
    if (frame.length >= Math.floor(width / 2)) frames.push(frame);
  }
  return frames;
}

/** frame_rms of §3.3 over frames(width). */
export function frameRmsReference(x: Int16Array, width: number): number[] {
  return framesReference(x, width).map(rmsReference);
}

/** count(|x| ≥ 32760) (§3.3). */
export function countClippedReference(x: ArrayLike<number>): number {
  let count = 0;
  for (let i = 0; i < x.length; i++) if (Math.abs(x[i]) >= CLIP_LEVEL) count++;
  return count;
}

/** Number of i in 1..n−1 with x[i−1] < 0 ≤ x[i] or x[i−1] ≥ 0 > x[i] (§3.3). */
export function countZeroCrossingsReference(x: ArrayLike<number>): number {
  let count = 0;
  for (let i = 1; i < x.length; i++) {
    if ((x[i - 1] < 0 && x[i] >= 0) || (x[i - 1] >= 0 && x[i] < 0)) count++;
  }
  return count;
}

/** Everything frameStatsI16 computes in one pass: frame RMS, whole-clip RMS and Σx², clipped samples, zero crossings. */
export function frameStatsReference(x: Int16Array, width: number): {
  frameRms: number[];
  rms: number;
  sumSquares: bigint;
  clipped: number;
  crossings: number;
} {
  return {
    frameRms: frameRmsReference(x, width),
    rms: rmsReference(x),
    sumSquares: sumSquaresReference(x),
    clipped: countClippedReference(x),
    crossings: countZeroCrossingsReference(x),
  };
}

/** §3.6 for one 40 ms frame, with the spec's sequential float64 sums; null = no pitch. */
function framePitchReference(frame: Int16Array, sampleRate: number): number | null {
  if (rmsReference(frame) < SILENCE_RMS) return null;
  const step = Math.max(1, Math.floor(sampleRate / 8000));
  const d: number[] = [];
  for (let i = 0; i < frame.length; i += step) d.push(frame[i]);
  const r = sampleRate / step;
  const minLag = Math.max(1, Math.trunc(r / 400));
  const maxLag = Math.min(Math.floor(d.length / 2), Math.trunc(r / 70));
  if (maxLag <= minLag) return null;
  let sum = 0;
  for (const v of d) sum += v; // an exact integer: |Σd| < 2^25
  const mean = sum / d.length;
  const c = d.map((v) => v - mean);
  let energy = 0;
  for (const v of c) energy += v * v;
  if (energy <= 0) return null;
  let best = -Infinity;
  let bestLag = minLag;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let corr = 0;
    for (let i = 0; i < c.length - lag; i++) corr += c[i] * c[i + lag];
    if (corr > best) {
      best = corr;
      bestLag = lag;
    }
  }
  if (best / energy < VOICING_THRESHOLD) return null;
  return r / bestLag;
}

/** Pitch of every 40 ms frame (§3.6): w40 = max(1, floor(sr·40/1000)). */
export function pitchFramesReference(x: Int16Array, sampleRate: number): (number | null)[] {
  const width = Math.max(1, Math.floor((sampleRate * 40) / 1000));
  return framesReference(x, width).map((frame) => framePitchReference(frame, sampleRate));
}

const MASK_64 = (1n << 64n) - 1n;
const PRIME_1 = 0x9e3779b185ebca87n;
const PRIME_2 = 0xc2b2ae3d27d4eb4fn;
const PRIME_3 = 0x165667b19e3779f9n;
const PRIME_4 = 0x85ebca77c2b2ae63n;
const PRIME_5 = 0x27d4eb2f165667c5n;

const rotl64 = (v: bigint, r: number): bigint => ((v << BigInt(r)) | (v >> BigInt(64 - r))) & MASK_64;
const xxhRound = (acc: bigint, lane: bigint): bigint => (rotl64((acc + lane * PRIME_2) & MASK_64, 31) * PRIME_1) & MASK_64;
const xxhMerge = (acc: bigint, lane: bigint): bigint => (((acc ^ xxhRound(0n, lane)) * PRIME_1 + PRIME_4) & MASK_64);

/** XXH64 (seed 0) of the little-endian int16 bytes, per the xxHash specification. */
export function hashReference(samples: Int16Array): bigint {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  samples.forEach((s, i) => view.setInt16(2 * i, s, true));
  const len = bytes.length;
  let p = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (PRIME_1 + PRIME_2) & MASK_64;
    let v2 = PRIME_2;
    let v3 = 0n;
    let v4 = (0n - PRIME_1) & MASK_64;
    for (; p + 32 <= len; p += 32) {
      v1 = xxhRound(v1, view.getBigUint64(p, true));
      v2 = xxhRound(v2, view.getBigUint64(p + 8, true));
      v3 = xxhRound(v3, view.getBigUint64(p + 16, true));
      v4 = xxhRound(v4, view.getBigUint64(p + 24, true));
    }
    h = (rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18)) & MASK_64;
    for (const v of [v1, v2, v3, v4]) h = xxhMerge(h, v);
  } else {
    h = PRIME_5;
  }
  h = (h + BigInt(len)) & MASK_64;
  for (; p + 8 <= len; p += 8) h = (rotl64(h ^ xxhRound(0n, view.getBigUint64(p, true)), 27) * PRIME_1 + PRIME_4) & MASK_64;
  if (p + 4 <= len) {
    h = (rotl64(h ^ ((BigInt(view.getUint32(p, true)) * PRIME_1) & MASK_64), 23) * PRIME_2 + PRIME_3) & MASK_64;
    p += 4;
  }
  for (; p < len; p++) h = (rotl64(h ^ ((BigInt(bytes[p]) * PRIME_5) & MASK_64), 11) * PRIME_1) & MASK_64;
  h ^= h >> 33n;
  h = (h * PRIME_2) & MASK_64;
  h ^= h >> 29n;
  h = (h * PRIME_3) & MASK_64;
  h ^= h >> 32n;
  return h;
}

/** The full, non-silent loop windows of §3.7 steps 1–3 with their hash. */
export function loopFingerprintsReference(x: Int16Array, width: number): { start: number; hash: bigint }[] {
  const out: { start: number; hash: bigint }[] = [];
  for (let start = 0; start + width <= x.length; start += width) {
    const window = x.subarray(start, start + width);
    if (rmsReference(window) >= SILENCE_RMS) out.push({ start, hash: hashReference(window) });
  }
  return out;
}

/** loop_events of §3.7: windows keyed by their exact content; Σ over keys seen more than twice of (count − 1). */
export function loopEventsReference(x: Int16Array, sampleRate: number): number {
  const width = Math.max(1, Math.trunc(sampleRate * 0.25));
  const counts = new Map<string, number>();
  for (let start = 0; start + width <= x.length; start += width) {
    const window = x.subarray(start, start + width);
    if (rmsReference(window) < SILENCE_RMS) continue;
    const key = Array.from(window).join(",");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let events = 0;
  for (const count of counts.values()) if (count > 2) events += count - 1;
  return events;
}

/** Longest dropout run, in frames (§3.4). */
const MAX_DROPOUT_FRAMES = 10;

/** The frame_rms summaries of §3.3–3.5 that frameSummaryF64 computes; speech/noise are 0.0 for an empty list. */
/** The same record as the kernel's (src/dsp/parity.ts). */
export type FrameSummaryReference = FrameSummary;

/**
 * silent[k] = frame_rms[k] < 300; the longest silent run; dropouts by the reference's scan (§3.4);
 * voiced = [r ≥ 300], quiet = [0 < r < 300] and their order statistics by a full sort (§3.5).
 */
export function frameSummaryReference(frameRms: ArrayLike<number>): FrameSummaryReference {
  const silent = Array.from(frameRms, (r) => r < SILENCE_RMS);
  let longest = 0;
  let run = 0;
  for (const s of silent) {
    run = s ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  let dropouts = 0;
  let i = 1;
  while (i < silent.length - 1) {
    if (!silent[i] || silent[i - 1]) {
      i++;
      continue;
    }
    let end = i;
    while (end < silent.length && silent[end]) end++;
    if (end < silent.length && end - i <= MAX_DROPOUT_FRAMES) dropouts++;
    i = end;
  }
  const voiced = Float64Array.from(Array.from(frameRms).filter((r) => r > 0 && r >= SILENCE_RMS)).sort();
  const quiet = Float64Array.from(Array.from(frameRms).filter((r) => r > 0 && r < SILENCE_RMS)).sort();
  return {
    speech: voiced.length > 0 ? voiced[Math.trunc(0.75 * (voiced.length - 1))] : 0.0,
    noise: quiet.length > 0 ? quiet[Math.trunc(0.25 * (quiet.length - 1))] : 0.0,
    silent: silent.filter((s) => s).length,
    longest,
    dropouts,
    voiced: voiced.length,
    quiet: quiet.length,
  };
}

/** loop_events (§3.7 step 4) of the windows of `width` samples starting at `starts`, keyed by their exact content. */
export function loopEventsOfWindowsReference(x: Int16Array, starts: ArrayLike<number>, width: number): number {
  const counts = new Map<string, number>();
  for (let j = 0; j < starts.length; j++) {
    const key = Array.from(x.subarray(starts[j], starts[j] + width)).join(",");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let events = 0;
  for (const count of counts.values()) if (count > 2) events += count - 1;
  return events;
}
