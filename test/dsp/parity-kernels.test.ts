// Parity kernels (assembly/kernels/{frames,pitch,fingerprint}.ts) against their plain-TS twins on random signals, rates and lengths.
import { describe, expect, it } from "vitest";
import { FRAME_SUMMARY, FRAME_TOTALS, measureParityFrames, measureParityFrameValues, parityWidths, readFrameSummary } from "../../src/dsp/parity.js";
import { pyMean, pyPstdev } from "../../src/dsp/pynum.js";
import {
  countClippedReference,
  countZeroCrossingsReference,
  frameRmsReference,
  frameStatsReference,
  frameSummaryReference,
  hashReference,
  loopEventsOfWindowsReference,
  loopEventsReference,
  loopFingerprintsReference,
  pitchFramesReference,
  quotientReference,
  rmsReference,
  sumSquaresReference,
} from "../../src/dsp/reference/parity.js";
import { Arena, getKernels } from "../../src/dsp/wasm.js";
import { SIGNAL_KINDS, makeSignal, noise, seededRandom, type Random } from "./parity-signals.js";

const k = getKernels();

const COMMON_RATES = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000];
const ODD_RATES = [1, 7, 3999, 15999, 96000];
const RATES = [...COMMON_RATES, ...ODD_RATES];

/** Lengths 0, 1, a few odd ones and ±1 around the 20 ms, 40 ms and 250 ms boundaries at `sampleRate`. */
function lengthsFor(sampleRate: number, random: Random): number[] {
  const w = parityWidths(sampleRate);
  const around = (v: number) => [v - 1, v, v + 1];
  const odd = () => 2 * Math.floor(random() * 3000) + 1;
  const lengths = [0, 1, 7, odd(), odd(), ...around(w.frame), ...around(Math.floor(w.frame / 2)), ...around(w.pitchFrame), ...around(3 * w.pitchFrame + Math.floor(w.pitchFrame / 2))];
  if (w.loopWindow * 3 <= 50000) lengths.push(...around(3 * w.loopWindow));
  return [...new Set(lengths.filter((n) => n >= 0 && n <= 60000))];
}

/** Copy `x` into a fresh arena at an offset of `shift` samples (so SIMD loads are unaligned when shift is odd). */
function place(x: Int16Array, shift = 0): { arena: Arena; ptr: number } {
  const arena = new Arena();
  const base = arena.allocI16(x.length + shift);
  const ptr = base + 2 * shift;
  arena.i16(ptr, x.length).set(x);
  return { arena, ptr };
}

/** Pitches as the twin reports them: null where the kernel writes 0. */
function kernelPitches(x: Int16Array, sampleRate: number, shift: number): (number | null)[] {
  const { arena, ptr } = place(x, shift);
  const frames = k.frameCount(x.length, parityWidths(sampleRate).pitchFrame);
  const out = arena.allocF64(frames);
  const scratch = arena.alloc(k.pitchScratchBytes());
  expect(k.pitchFramesI16(ptr, x.length, sampleRate, scratch, out)).toBe(frames);
  return Array.from(arena.f64(out, frames), (p) => (p === 0 ? null : p));
}

describe("quotientF64 (Python int / int)", () => {
  it("rounds exactly once, like the BigInt twin, below and above 2^53", () => {
    const random = seededRandom(1);
    const cases: [bigint, bigint][] = [
      [0n, 1n],
      [2n ** 53n - 1n, 3n],
      [2n ** 53n, 3n],
      [2n ** 53n + 1n, 2n],
      [2n ** 54n + 3n, 4n],
      [2n ** 63n - 1n, 1n],
      [2n ** 63n - 1n, 4294967295n],
      [2n ** 62n + 1n, 3n],
    ];
    for (let i = 0; i < 3000; i++) {
      const bits = 1 + Math.floor(random() * 63);
      const numerator = BigInt(Math.floor(random() * 2 ** 31)) * 2n ** 32n + BigInt(Math.floor(random() * 2 ** 32));
      const denominator = 1n + BigInt(Math.floor(random() * 2 ** (1 + Math.floor(random() * 32))));
      cases.push([numerator % 2n ** BigInt(bits), denominator]);
    }
    for (const [numerator, denominator] of cases) {
      expect(k.quotientF64(numerator, denominator), `${numerator}/${denominator}`).toBe(quotientReference(numerator, denominator));
    }
  });

  it("matches known Python results", () => {
    // python3 -c "print(repr((2**60+1)/3), repr((2**62+1)/5), repr((2**53+3)/2))"
    expect(k.quotientF64(2n ** 60n + 1n, 3n)).toBe(3.843071682022823e17);
    expect(k.quotientF64(2n ** 62n + 1n, 5n)).toBe(9.223372036854776e17);
    expect(k.quotientF64(2n ** 53n + 3n, 2n)).toBe(4503599627370498.0);
  });
});

/** frameStatsI16 over `x` placed `shift` samples off alignment, in the twin's shape. */
function kernelFrameStats(x: Int16Array, width: number, shift: number): ReturnType<typeof frameStatsReference> {
  const { arena, ptr } = place(x, shift);
  const frames = k.frameCount(x.length, width);
  const out = arena.allocF64(frames);
  const totals = arena.alloc(FRAME_TOTALS.bytes);
  expect(k.frameStatsI16(ptr, x.length, width, out, totals)).toBe(frames);
  const counts = arena.i32(totals, FRAME_TOTALS.bytes >> 2);
  return {
    frameRms: Array.from(arena.f64(out, frames)),
    rms: arena.f64(totals + FRAME_TOTALS.rms, 1)[0],
    sumSquares: arena.i64(totals + FRAME_TOTALS.sumSquares, 1)[0],
    clipped: counts[FRAME_TOTALS.clipped >> 2],
    crossings: counts[FRAME_TOTALS.crossings >> 2],
  };
}

describe("frame kernels vs twin", () => {
  it("sum of squares and RMS agree on random signals, lengths and alignments", () => {
    const random = seededRandom(2);
    for (const kind of SIGNAL_KINDS) {
      for (const n of [0, 1, 2, 7, 8, 9, 15, 16, 17, 1001, 4096, 30001]) {
        const x = makeSignal(kind, random, n, 16000);
        const shift = Math.floor(random() * 8);
        const { ptr } = place(x, shift);
        const label = `${kind} n=${n} shift=${shift}`;
        expect(k.sumSquaresI16(ptr, n), label).toBe(sumSquaresReference(x));
        expect(k.rmsI16(ptr, n), label).toBe(rmsReference(x));
      }
    }
  });

  it("full-scale extremes: every −32768 pair, 2^31 dot lanes and clip levels", () => {
    const edge = Int16Array.from({ length: 203 }, (_, i) => [-32768, -32768, 32767, -32760, 32760, -32759, 32759, 0, -1][i % 9]);
    for (const width of [1, 8, 9, 160]) expect(kernelFrameStats(edge, width, 1)).toEqual(frameStatsReference(edge, width));
    const allMin = new Int16Array(100003).fill(-32768);
    const placed = place(allMin);
    expect(k.sumSquaresI16(placed.ptr, allMin.length)).toBe(100003n * 2n ** 30n);
    expect(k.rmsI16(placed.ptr, allMin.length)).toBe(32768);
    expect(kernelFrameStats(allMin, 441, 0)).toEqual(frameStatsReference(allMin, 441));
  });

  it("frame stats (20 ms RMS, clip RMS, Σx², clipping, zero crossings) agree for every rate, boundary length and alignment", () => {
    const random = seededRandom(3);
    for (const sampleRate of RATES) {
      const width = parityWidths(sampleRate).frame;
      for (const n of lengthsFor(sampleRate, random)) {
        for (const kind of SIGNAL_KINDS) {
          const x = makeSignal(kind, random, n, sampleRate);
          const shift = Math.floor(random() * 8);
          expect(kernelFrameStats(x, width, shift), `${kind} sr=${sampleRate} n=${n} shift=${shift}`).toEqual(frameStatsReference(x, width));
        }
      }
    }
  });

  it("frame count keeps a last partial frame only from floor(width / 2) samples", () => {
    expect(k.frameCount(0, 160)).toBe(0);
    expect(k.frameCount(79, 160)).toBe(0);
    expect(k.frameCount(80, 160)).toBe(1);
    expect(k.frameCount(239, 160)).toBe(1);
    expect(k.frameCount(240, 160)).toBe(2);
    expect(k.frameCount(1, 1)).toBe(1);
    expect(k.frameCount(1, 3)).toBe(1);
    expect(k.frameStatsI16(0, 10, 0, 0, 0)).toBe(-1);
  });
});

describe("pitch kernel vs twin (§3.6, exact float64 equality)", () => {
  it("agrees on every signal kind, rate and boundary length", () => {
    const random = seededRandom(4);
    for (const sampleRate of RATES) {
      for (const n of lengthsFor(sampleRate, random)) {
        for (const kind of SIGNAL_KINDS) {
          const x = makeSignal(kind, random, n, sampleRate);
          const shift = Math.floor(random() * 8);
          expect(kernelPitches(x, sampleRate, shift), `${kind} sr=${sampleRate} n=${n}`).toEqual(pitchFramesReference(x, sampleRate));
        }
      }
    }
  });

  it("agrees on long random clips with many voiced frames", () => {
    const random = seededRandom(5);
    for (const sampleRate of [8000, 16000, 24000, 44100, 48000]) {
      const parts = SIGNAL_KINDS.map((kind) => makeSignal(kind, random, Math.floor(sampleRate * (0.2 + random() * 0.4)), sampleRate));
      const x = Int16Array.from(parts.flatMap((p) => Array.from(p)));
      expect(kernelPitches(x, sampleRate, 3), `sr=${sampleRate}`).toEqual(pitchFramesReference(x, sampleRate));
    }
  });

  it("finds real pitches (a 200 Hz square wave at 8 kHz reads exactly 200 Hz)", () => {
    const x = Int16Array.from({ length: 8000 }, (_, i) => (i % 40 < 20 ? 10000 : -10000));
    expect(new Set(kernelPitches(x, 8000, 0))).toEqual(new Set([200]));
  });
});

describe("fingerprint kernel vs twin (§3.7)", () => {
  it("XXH64 matches the specification's empty-input vector and the BigInt twin", () => {
    const random = seededRandom(6);
    const { ptr } = place(new Int16Array(0));
    expect(BigInt.asUintN(64, k.hashI16(ptr, 0))).toBe(0xef46db3751d8e999n);
    for (let n = 0; n < 80; n++) {
      const x = noise(random, n, 32768);
      const placed = place(x, n % 3);
      expect(BigInt.asUintN(64, k.hashI16(placed.ptr, n)), `n=${n}`).toBe(hashReference(x));
    }
    const long = noise(random, 6001, 32768);
    expect(BigInt.asUintN(64, k.hashI16(place(long, 1).ptr, long.length))).toBe(hashReference(long));
  });

  it("fingerprints the same full, non-silent windows as the twin", () => {
    const random = seededRandom(7);
    for (const sampleRate of [1, 7, 3999, 8000, 11025, 16000]) {
      const width = parityWidths(sampleRate).loopWindow;
      for (const n of [0, 1, width - 1, width, width + 1, 3 * width - 1, 3 * width, 3 * width + 1, 5 * width + 7]) {
        const kind = SIGNAL_KINDS[Math.floor(random() * SIGNAL_KINDS.length)];
        const x = makeSignal(kind, random, n, sampleRate);
        const { arena, ptr } = place(x, 1);
        const windows = Math.floor(n / width);
        const starts = arena.allocI32(windows);
        const hashes = arena.alloc(8 * windows);
        const count = k.loopFingerprintsI16(ptr, n, width, starts, hashes);
        const actual = Array.from({ length: count }, (_, j) => ({
          start: arena.i32(starts, count)[j],
          hash: BigInt.asUintN(64, arena.i64(hashes, count)[j]),
        }));
        expect(actual, `${kind} sr=${sampleRate} n=${n}`).toEqual(loopFingerprintsReference(x, width));
      }
    }
  });

  it("groups windows by exact content even when every hash collides", () => {
    const random = seededRandom(8);
    const width = 50;
    const a = noise(random, width, 5000);
    const b = noise(random, width, 5000);
    const c = Int16Array.from(a, (v, i) => (i === width - 1 ? v + 1 : v));
    const layout = [a, b, a, c, a, b, c, a, b, c, c];
    const pcm = Int16Array.from(layout.flatMap((w) => Array.from(w)));
    const starts = layout.map((_, j) => j * width);
    // a ×4 → 3, b ×3 → 2, c ×4 → 3
    expect(kernelLoopEvents(pcm, starts, starts.map(() => 0n), width, 1)).toBe(8);
    expect(kernelLoopEvents(pcm, starts, starts.map(() => 0n), width, 0)).toBe(loopEventsReference(pcm, 200));
    // Two different hashes that both land on the table's last slot (32 slots), so their probe chains
    // interleave and wrap around; windows group only within a hash, and by content within it.
    const top = (1n << 64n) - 1n;
    expect(kernelLoopEvents(pcm, starts, starts.map((_, j) => (j % 2 === 0 ? top : top - 32n)), width, 3)).toBe(
      loopEventsOfWindowsReference(pcm, starts.filter((_, j) => j % 2 === 0), width) + loopEventsOfWindowsReference(pcm, starts.filter((_, j) => j % 2 === 1), width),
    );
  });

  it("counts repeated windows like the content-keyed twin (widths around the SIMD step, real hashes)", () => {
    const random = seededRandom(11);
    for (const width of [1, 2, 7, 8, 9, 15, 16, 17, 50, 2000]) {
      for (let trial = 0; trial < 8; trial++) {
        const pool = Array.from({ length: 1 + Math.floor(random() * 4) }, () => noise(random, width, 3000));
        // Near-copies differ in one sample only, anywhere in the window (SIMD body or scalar tail).
        const near = pool.map((w) => Int16Array.from(w, (v, i) => (i === Math.floor(random() * width) ? v ^ 1 : v)));
        const layout = Array.from({ length: Math.floor(random() * 40) }, () => (random() < 0.8 ? pool : near)[Math.floor(random() * pool.length)]);
        const pcm = Int16Array.from(layout.flatMap((w) => Array.from(w)));
        const starts = layout.map((_, j) => j * width);
        const { arena, ptr } = place(pcm, trial % 3);
        const hashes = starts.map((start) => BigInt.asUintN(64, k.hashI16(ptr + 2 * start, width)));
        arena.reset();
        expect(kernelLoopEvents(pcm, starts, hashes, width, trial % 3), `width=${width} trial=${trial}`).toBe(loopEventsOfWindowsReference(pcm, starts, width));
      }
    }
  });

  it("rejects a bad width or count and sizes the table to a power of two of at least twice the windows", () => {
    expect(k.loopEventsI16(0, 0, 0, 0, 0, 0)).toBe(-1);
    expect(k.loopEventsI16(0, 1, 0, 0, -1, 0)).toBe(-1);
    expect(k.loopTableBytes(0)).toBe(32);
    expect(k.loopTableBytes(1)).toBe(32);
    expect(k.loopTableBytes(2)).toBe(64);
    expect(k.loopTableBytes(3)).toBe(128);
    expect(k.loopTableBytes(4)).toBe(128);
    expect(k.loopTableBytes(14400)).toBe(32768 * 16);
  });
});

/** loopEventsI16 over `pcm` placed `shift` samples off alignment, with the given window starts and hashes. */
function kernelLoopEvents(pcm: Int16Array, starts: number[], hashes: bigint[], width: number, shift: number): number {
  const { arena, ptr } = place(pcm, shift);
  const startsPtr = arena.allocI32(starts.length);
  const hashesPtr = arena.alloc(8 * hashes.length);
  const table = arena.alloc(k.loopTableBytes(starts.length));
  // Leave garbage in the table: the kernel must clear it.
  arena.i32(table, k.loopTableBytes(starts.length) >> 2).fill(-7);
  arena.i32(startsPtr, starts.length).set(starts);
  arena.i64(hashesPtr, hashes.length).set(hashes.map((h) => BigInt.asIntN(64, h)));
  return k.loopEventsI16(ptr, width, startsPtr, hashesPtr, starts.length, table);
}

/** frameSummaryF64 over `frameRms`, in the twin's shape; also checks that the input is left untouched. */
function kernelFrameSummary(frameRms: ArrayLike<number>): ReturnType<typeof frameSummaryReference> {
  const arena = new Arena();
  const frames = frameRms.length;
  const rmsPtr = arena.allocF64(frames);
  const scratch = arena.allocF64(frames);
  const out = arena.alloc(FRAME_SUMMARY.bytes);
  arena.f64(rmsPtr, frames).set(Array.from(frameRms));
  expect(k.frameSummaryF64(rmsPtr, frames, scratch, out)).toBe(frames);
  expect(Array.from(arena.f64(rmsPtr, frames))).toEqual(Array.from(frameRms));
  return readFrameSummary(arena, out);
}

describe("frame summary kernel vs twin (§3.3–3.5: silence, longest run, dropouts, SNR order statistics)", () => {
  it("agrees on random frame RMS lists with exact ties at 300, zeros, repeats and every short length", () => {
    const random = seededRandom(12);
    // Values on both sides of the threshold, exactly 300 and 0, and few distinct values so ties abound.
    const palette = [0, 0, 1e-3, 1, 150, 299.99999999999994, 300, 300, 300.00000000000006, 450, 1000, 32768];
    const draws: (() => number)[] = [
      () => palette[Math.floor(random() * palette.length)],
      () => random() * 600,
      () => (random() < 0.5 ? 300 : random() < 0.5 ? 0 : Math.floor(random() * 4) * 100),
      () => (random() < 0.3 ? 0 : Math.sqrt(random() * 1e6)),
    ];
    for (let length = 0; length <= 40; length++) {
      for (const draw of draws) {
        for (let trial = 0; trial < 4; trial++) {
          const rms = Array.from({ length }, draw);
          expect(kernelFrameSummary(rms), `n=${length} ${rms.join(",")}`).toEqual(frameSummaryReference(rms));
        }
      }
    }
    for (const length of [99, 101, 257, 1001, 4099]) {
      for (const draw of draws) {
        const rms = Array.from({ length }, draw);
        expect(kernelFrameSummary(rms), `n=${length}`).toEqual(frameSummaryReference(rms));
      }
    }
  });

  it("all-silent, all-digital-silence, all-loud and all-exactly-300 lists", () => {
    for (const length of [0, 1, 2, 3, 10, 11, 12, 13, 500]) {
      for (const value of [0, 1, 299, 300, 301, 32768]) {
        const rms = new Array<number>(length).fill(value);
        expect(kernelFrameSummary(rms), `n=${length} v=${value}`).toEqual(frameSummaryReference(rms));
      }
    }
  });

  it("dropouts: runs of 1…12 silent frames between loud ones, and runs touching either end", () => {
    for (let run = 1; run <= 12; run++) {
      for (const lead of [0, 1, 2]) {
        for (const tail of [0, 1, 2]) {
          const rms = [...new Array<number>(lead).fill(500), ...new Array<number>(run).fill(100), ...new Array<number>(tail).fill(300)];
          const summary = kernelFrameSummary(rms);
          expect(summary, `lead=${lead} run=${run} tail=${tail}`).toEqual(frameSummaryReference(rms));
          expect(summary.dropouts).toBe(lead > 0 && tail > 0 && run <= 10 ? 1 : 0);
          expect(summary.longest).toBe(run);
        }
      }
    }
  });

  it("agrees on the frame RMS of real signals at every rate and boundary length", () => {
    const random = seededRandom(13);
    for (const sampleRate of RATES) {
      const width = parityWidths(sampleRate).frame;
      for (const n of lengthsFor(sampleRate, random)) {
        for (const kind of SIGNAL_KINDS) {
          const rms = frameRmsReference(makeSignal(kind, random, n, sampleRate), width);
          expect(kernelFrameSummary(rms), `${kind} sr=${sampleRate} n=${n}`).toEqual(frameSummaryReference(rms));
        }
      }
    }
  });

  it("rejects a negative frame count", () => {
    expect(k.frameSummaryF64(0, -1, 0, 0)).toBe(-1);
    expect(k.voicedPitchesF64(0, -1, 0)).toBe(-1);
  });
});

describe("measureParityFrames vs the twins", () => {
  it("agrees on random clips at every rate", () => {
    const random = seededRandom(9);
    for (const sampleRate of RATES) {
      for (const n of [1, 2, 3, 1001, Math.min(60000, 2 * sampleRate + 1)]) {
        const kind = SIGNAL_KINDS[Math.floor(random() * SIGNAL_KINDS.length)];
        const x = makeSignal(kind, random, n, sampleRate);
        const w = parityWidths(sampleRate);
        const r = measureParityFrameValues(x, sampleRate);
        const { frameRms, pitchHz, voicedPitchHz, ...summaries } = r;
        expect(measureParityFrames(x, sampleRate)).toEqual(summaries);
        const edge = Math.min(n, w.edge);
        const label = `${kind} sr=${sampleRate} n=${n}`;
        expect(r.rms, label).toBe(rmsReference(x));
        expect(r.clippedCount, label).toBe(countClippedReference(x));
        expect(r.zeroCrossings, label).toBe(countZeroCrossingsReference(x));
        expect(Array.from(r.frameRms), label).toEqual(frameRmsReference(x, w.frame));
        expect(Array.from(r.pitchHz, (p) => (p === 0 ? null : p)), label).toEqual(pitchFramesReference(x, sampleRate));
        expect(r.voicedPitchHz, label).toEqual(pitchFramesReference(x, sampleRate).filter((p) => p !== null));
        expect([r.frameCount, r.pitchFrameCount, r.voicedPitchCount], label).toEqual([frameRms.length, pitchHz.length, voicedPitchHz.length]);
        expect(r.pitchMeanHz, label).toBe(voicedPitchHz.length > 0 ? pyMean(voicedPitchHz) : null);
        expect(r.pitchPstdevHz, label).toBe(voicedPitchHz.length >= 2 ? pyPstdev(voicedPitchHz) : null);
        const summary = frameSummaryReference(frameRmsReference(x, w.frame));
        expect(r.silentFrameCount, label).toBe(summary.silent);
        expect(r.longestSilentRun, label).toBe(summary.longest);
        expect(r.dropoutEvents, label).toBe(summary.dropouts);
        expect(r.voicedFrameCount, label).toBe(summary.voiced);
        expect(r.quietFrameCount, label).toBe(summary.quiet);
        expect(r.speechRms, label).toBe(summary.speech);
        expect(r.noiseRms, label).toBe(summary.noise);
        expect(r.loopEvents, label).toBe(loopEventsReference(x, sampleRate));
        expect(r.startRms, label).toBe(rmsReference(x.subarray(0, edge)));
        expect(r.endRms, label).toBe(rmsReference(x.subarray(n - edge)));
      }
    }
  });

  it("counts loops of repeated 250 ms windows and ignores repeated silence", () => {
    const random = seededRandom(10);
    const sampleRate = 8000;
    const width = parityWidths(sampleRate).loopWindow;
    const loud = noise(random, width, 3000);
    const other = noise(random, width, 3000);
    const quiet = noise(random, width, 100);
    const layout = [loud, quiet, loud, other, quiet, loud, quiet, other];
    const x = Int16Array.from(layout.flatMap((w) => Array.from(w)));
    expect(measureParityFrames(x, sampleRate).loopEvents).toBe(2);
  });

  it("rejects sample rates outside 1…2^31−1 with a message naming the field", () => {
    expect(() => measureParityFrames(new Int16Array(10), 0)).toThrow(/sampleRate/);
    expect(() => measureParityFrames(new Int16Array(10), 8000.5)).toThrow(/sampleRate/);
  });
});
