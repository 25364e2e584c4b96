// Kernel ≈ twin property tests for the stream-integrity kernels (block levels, zero runs, speech-only WADA sums, repeat scan) on random signals, rates and lengths.
import { describe, expect, it } from "vitest";
import { ChannelKernels, type RepeatScanOptions } from "../../src/dsp/channel-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { blockLevelsReference, repeatScanReference, wadaSumsReference, zeroRunsReference } from "../../src/dsp/reference/integrity.js";
import { seededRandom, whiteNoise } from "../helpers/signals.js";

const random = seededRandom(1717);
const RATES = [8000, 16000, 22050, 24000, 44100, 48000];
const LENGTHS = (rate: number) => [0, 1, 7, Math.floor(rate * 0.021) | 1, Math.floor(rate * 1.37) | 1];

/** Speech-like noise: harmonics with a wandering F0 and amplitude, noise, and some runs of exact zeros. */
function speechLike(n: number, rate: number, zeros = true): Float32Array {
  const x = whiteNoise(n, 0.02, random);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const f0 = 120 + 40 * Math.sin((2 * Math.PI * 3 * i) / rate);
    phase += (2 * Math.PI * f0) / rate;
    const env = 0.3 * (0.5 + 0.5 * Math.sin((2 * Math.PI * 4 * i) / rate + 1));
    for (let h = 1; h <= 4; h++) x[i] += (env / h) * Math.sin(h * phase);
  }
  if (zeros) {
    for (let k = 0; k < 4 && n > 10; k++) {
      const at = Math.floor(random() * n), len = Math.floor(random() * rate * 0.05);
      x.fill(0, at, Math.min(n, at + len));
    }
  }
  return x;
}

function withKernels<T>(x: Float32Array, rate: number, run: (k: ChannelKernels) => T): T {
  return withArena((arena) => run(ChannelKernels.copyOf(arena, x, rate)));
}

describe("block levels kernel ≈ twin", () => {
  it.each(RATES)("%i Hz", (rate) => {
    for (const n of LENGTHS(rate)) {
      const block = Math.round(rate * 0.005);
      const x = speechLike(n, rate);
      const got = withKernels(x, rate, (k) => k.blockLevels(block));
      const want = blockLevelsReference(x, block);
      expect(got.length, `n=${n}`).toBe(want.length);
      want.forEach((v, i) => expect(Math.abs(got[i] - v)).toBeLessThanOrEqual(1e-3));
    }
  });
});

describe("zero runs kernel ≈ twin", () => {
  it.each(RATES)("%i Hz", (rate) => {
    for (const n of [...LENGTHS(rate), rate * 2]) {
      const x = speechLike(n, rate);
      const minRun = Math.max(1, Math.round(rate * 0.002)), edge = Math.round(rate * 0.0025);
      const got = withKernels(x, rate, (k) => k.zeroRuns(minRun, edge));
      const want = zeroRunsReference(x, minRun, edge);
      expect(got.map((r) => [r.start, r.end]), `n=${n}`).toEqual(want.map((r) => [r.start, r.end]));
      want.forEach((r, i) => {
        expect(Math.abs(got[i].beforeDb - r.beforeDb)).toBeLessThanOrEqual(1e-3);
        expect(Math.abs(got[i].afterDb - r.afterDb)).toBeLessThanOrEqual(1e-3);
      });
    }
  });

  it("finds an inserted 20 ms gap exactly", () => {
    const rate = 16000;
    const x = speechLike(rate, rate, false);
    x.fill(0, 4000, 4320);
    const runs = withKernels(x, rate, (k) => k.zeroRuns(32, 40));
    expect(runs.map((r) => [r.start, r.end])).toEqual([[4000, 4320]]);
    expect(runs[0].beforeDb).toBeGreaterThan(-40);
  });
});

describe("speech-only WADA sums kernel ≈ twin", () => {
  it.each(RATES)("%i Hz", (rate) => {
    for (const n of LENGTHS(rate)) {
      const x = speechLike(n, rate);
      const ranges: Array<[number, number]> = [];
      for (let at = 0; at < n; ) {
        const len = 1 + Math.floor(random() * rate * 0.3);
        ranges.push([at, Math.min(n + 5, at + len)]);
        at += len + Math.floor(random() * rate * 0.2);
      }
      const got = withKernels(x, rate, (k) => k.wadaSums(ranges));
      const [count, sumAbs, sumLn] = wadaSumsReference(x, ranges);
      expect(got.count).toBe(count);
      expect(Math.abs(got.sumAbs - sumAbs)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(sumAbs)));
      expect(Math.abs(got.sumLn - sumLn)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(sumLn)));
    }
  });

  it("leaves exact zeros out", () => {
    const x = new Float32Array([0, 0.5, 0, -0.25, 0]);
    const got = withKernels(x, 8000, (k) => k.wadaSums([[0, 5]]));
    expect(got.count).toBe(2);
    expect(got.sumAbs).toBeCloseTo(0.75, 12);
    expect(got.sumLn).toBeCloseTo(Math.log(0.5) + Math.log(0.25), 12);
  });
});

function repeatOptions(rate: number): RepeatScanOptions {
  return {
    window: 32, scale: 1024, gate: 64,
    minLag: Math.round(0.2 * rate), maxLag: Math.round(0.6 * rate),
    blockLength: Math.round(0.005 * rate), matchRatio: 0.01, minRunFraction: 0.8,
    tableBits: Math.max(10, Math.ceil(Math.log2(4 * 0.6 * rate))),
  };
}

/** Insert a copy of x[at, at + len) right after it (a loop). */
function insertLoop(x: Float32Array, at: number, len: number): Float32Array {
  const out = new Float32Array(x.length + len);
  out.set(x.subarray(0, at + len), 0);
  out.set(x.subarray(at, at + len), at + len);
  out.set(x.subarray(at + len), at + 2 * len);
  return out;
}

describe("repeat scan kernel ≈ twin", () => {
  it.each(RATES)("%i Hz, loops at random offsets and lengths", (rate) => {
    const o = repeatOptions(rate);
    for (const n of [...LENGTHS(rate), rate * 3]) {
      let x = speechLike(n, rate, false);
      const loops: Array<[number, number]> = [];
      if (n > rate) {
        for (let k = 0; k < 2; k++) {
          const len = Math.round((0.2 + 0.4 * random()) * rate);
          const at = Math.floor(random() * (x.length - len));
          x = insertLoop(x, at, len);
          loops.push([at, len]);
        }
      }
      const got = withKernels(x, rate, (k) => k.repeats(o));
      expect(got, `n=${n}`).toEqual(repeatScanReference(x, o));
      if (loops.length) expect(got.length, `n=${n}`).toBeGreaterThanOrEqual(1);
    }
  });

  it("reports a 400 ms loop off any grid as ≈ 0.4 s repeated, and nothing on the clean signal", () => {
    const rate = 16000;
    const clean = speechLike(rate * 3, rate, false);
    expect(withKernels(clean, rate, (k) => k.repeats(repeatOptions(rate)))).toEqual([]);
    const looped = insertLoop(clean, 12345, 6400);
    const got = withKernels(looped, rate, (k) => k.repeats(repeatOptions(rate)));
    const repeated = got.reduce((s, r) => s + r.run, 0) / rate;
    expect(got[0].lag).toBe(6400);
    expect(repeated).toBeGreaterThan(0.35);
    expect(repeated).toBeLessThanOrEqual(0.45);
  });
});
