// IntegrityStream ≡ the whole-clip integrity kernels (ChannelKernels.blockLevels / zeroRuns / wadaSums) at random chunk sizes from 1 sample up, on signals with runs of digital silence of every length, signed zeros, quiet and loud edges.
import { describe, expect, it } from "vitest";
import { randomChunkSizes } from "../../src/audio/pcm-source.js";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { IntegrityStream, type IntegrityStreamPlan } from "../../src/dsp/integrity-stream.js";
import { getKernels, withArena } from "../../src/dsp/wasm.js";
import { seededRandom } from "../helpers/random.js";

type Random = () => number;
const randomInt = (random: Random, lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

/** Speech-like float signal with runs of exact zeros (1 sample to 30 ms, −0 among them), faint and loud stretches, a zero run at either end now and then. */
function signal(random: Random, n: number, sampleRate: number): Float32Array {
  const x = new Float32Array(n);
  let at = 0;
  while (at < n) {
    const len = Math.min(n - at, randomInt(random, 1, Math.ceil(0.05 * sampleRate)));
    const kind = randomInt(random, 0, 3);
    const amplitude = [1e-4, 0.02, 0.3, 0.99][randomInt(random, 0, 3)];
    const hz = 80 + 400 * random();
    for (let i = 0; i < len; i++) {
      if (kind === 0) x[at + i] = random() < 0.5 ? 0 : -0;
      else x[at + i] = amplitude * Math.sin((2 * Math.PI * hz * (at + i)) / sampleRate) + (random() - 0.5) * 1e-3;
    }
    at += len;
  }
  return x;
}

function bitsOf(values: ArrayLike<number>): string {
  return Buffer.from(Float64Array.from(values).buffer).toString("hex");
}

function whole(x: Float32Array, sampleRate: number, plan: IntegrityStreamPlan) {
  return withArena((arena) => {
    const ch = ChannelKernels.copyOf(arena, x, sampleRate);
    return {
      repeats: plan.repeats ? ch.repeats(plan.repeats) : null,
      blockLevels: ch.blockLevels(plan.blockLength),
      zeroRuns: plan.zeroRuns.map((z) => ch.zeroRuns(z.minRun, z.edgeLength)),
      wadaSums: plan.wadaRanges ? ch.wadaSums(plan.wadaRanges) : null,
    };
  });
}

function streamed(x: Float32Array, plan: IntegrityStreamPlan, sizes: (i: number) => number, maxChunk: number) {
  return withArena((arena) => {
    const stream = new IntegrityStream(arena, plan, maxChunk);
    for (let at = 0, i = 0; at < x.length; i++) {
      const n = Math.min(sizes(i), x.length - at);
      stream.push(x.slice(at, at + n));
      at += n;
    }
    return stream.finish();
  });
}

/** Increasing, non-overlapping ranges (some touching, some past the end), as merged speech segments are. */
function ranges(random: Random, n: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = randomInt(random, 0, 50);
  while (at < n + 40 && out.length < 12) {
    const end = at + randomInt(random, 0, Math.max(1, Math.floor(n / 4)));
    out.push([at, end]);
    at = end + (random() < 0.3 ? 0 : randomInt(random, 1, Math.max(1, Math.floor(n / 6))));
  }
  return out;
}

/** The repeat scan's parameters as measureIntegrity derives them at `sampleRate` (speech RMS `rms`). */
function repeatOptions(sampleRate: number, rms: number) {
  const window = Math.max(4, Math.round(0.002 * sampleRate));
  const minLag = Math.max(1, Math.round(0.2 * sampleRate));
  const maxLag = Math.max(minLag, Math.round(0.6 * sampleRate));
  return {
    window,
    scale: 32 / rms,
    gate: Math.round(1 * window),
    minLag,
    maxLag,
    blockLength: Math.max(1, Math.round(0.005 * sampleRate)),
    matchRatio: 0.01,
    minRunFraction: 0.8,
    tableBits: Math.min(24, Math.max(10, Math.ceil(Math.log2(4 * maxLag)))),
  };
}

/** Speech-like signal with repeats: segments copied right after themselves (lags 0.15–0.7 s, some with a faint start), and a looped stretch. */
function withRepeats(random: Random, seconds: number, sampleRate: number): Float32Array {
  const n = Math.round(seconds * sampleRate);
  const x = signal(random, n, sampleRate);
  for (let k = randomInt(random, 1, 4); k > 0; k--) {
    const lag = randomInt(random, Math.round(0.15 * sampleRate), Math.round(0.7 * sampleRate));
    const at = randomInt(random, 0, Math.max(0, n - 2 * lag - 1));
    const copies = random() < 0.3 ? randomInt(random, 2, 5) : 1;
    for (let c = 1; c <= copies; c++) {
      for (let i = 0; i < lag && at + c * lag + i < n; i++) x[at + c * lag + i] = x[at + i] * (random() < 0.5 ? 1 : 1 + (random() - 0.5) * 0.01);
    }
    if (random() < 0.3) for (let i = 0; i < Math.round(0.01 * sampleRate) && at + i < n; i++) x[at + i] *= 1e-3;
  }
  return x;
}

describe("IntegrityStream ≡ the whole-clip integrity kernels", () => {
  it("the repeat scan agrees at random chunk sizes (repeats at 0.15–0.7 s lags, loops, faint starts)", () => {
    const random = seededRandom(606);
    let found = 0;
    for (const sampleRate of [8000, 11025, 16000]) {
      for (let trial = 0; trial < 4; trial++) {
        const x = withRepeats(random, 1.5 + 3 * random(), sampleRate);
        const plan: IntegrityStreamPlan = { blockLength: 40, zeroRuns: [], repeats: repeatOptions(sampleRate, [0.02, 0.1, 0.3][trial % 3]) };
        const want = whole(x, sampleRate, plan);
        found += want.repeats!.length;
        for (const [seed, max] of [[trial + 5, randomInt(random, 1, 7)], [trial + 50, randomInt(random, 8, 20000)]]) {
          const got = streamed(x, plan, randomChunkSizes(seed, max), randomInt(random, 1, 8192));
          expect(got.repeats, `${sampleRate} Hz, ${x.length} samples, chunks ≤ ${max}`).toEqual(want.repeats);
        }
      }
    }
    expect(found).toBeGreaterThan(10);
  }, 120_000);

  it("block levels, zero runs (two edge scales) and WADA sums agree bit for bit at random chunk sizes", () => {
    const random = seededRandom(1105);
    let withRuns = 0;
    for (const sampleRate of [8000, 16000, 22050, 44100, 48000]) {
      for (let trial = 0; trial < 6; trial++) {
        const n = [0, 1, 2, 17, randomInt(random, 100, 3000), randomInt(random, 5000, 40000)][trial];
        const x = signal(random, n, sampleRate);
        const plan: IntegrityStreamPlan = {
          blockLength: randomInt(random, 1, Math.round(0.006 * sampleRate)),
          zeroRuns: [
            { minRun: randomInt(random, 1, 40), edgeLength: randomInt(random, 1, 100) },
            { minRun: randomInt(random, 1, 8), edgeLength: randomInt(random, 1, 12) },
          ],
          wadaRanges: ranges(random, n),
        };
        const want = whole(x, sampleRate, plan);
        for (const [seed, max] of [[trial + 1, randomInt(random, 1, 7)], [trial + 99, randomInt(random, 8, 5000)]]) {
          const got = streamed(x, plan, randomChunkSizes(seed, max), randomInt(random, 1, 4096));
          const label = `${sampleRate} Hz, ${n} samples, chunks ≤ ${max}`;
          expect(bitsOf(got.blockLevels), label).toBe(bitsOf(want.blockLevels));
          expect(got.zeroRuns.map((r) => r.toArray().map((z) => [z.start, z.end, bitsOf([z.beforeDb, z.afterDb])])), label).toEqual(
            want.zeroRuns.map((r) => r.map((z) => [z.start, z.end, bitsOf([z.beforeDb, z.afterDb])])),
          );
          expect(bitsOf([got.wadaSums!.count, got.wadaSums!.sumAbs, got.wadaSums!.sumLn]), label).toBe(bitsOf([want.wadaSums!.count, want.wadaSums!.sumAbs, want.wadaSums!.sumLn]));
        }
        withRuns += Number(want.zeroRuns[0].length > 0 && want.zeroRuns[1].length > 0);
      }
    }
    // The signals did have zero runs to find (and edges to measure) in most trials.
    expect(withRuns).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it("refuses bad arguments: overlapping or unsorted WADA ranges, a block length < 1, min run or edge < 1", () => {
    const k = getKernels();
    withArena((arena) => {
      expect(() => new IntegrityStream(arena, { blockLength: 4, zeroRuns: [], wadaRanges: [[10, 20], [15, 30]] }, 64)).toThrow(/integrityWadaInit/);
      expect(() => new IntegrityStream(arena, { blockLength: 0, zeroRuns: [] }, 64)).toThrow(/integrityBlockLevelsInit/);
      expect(() => new IntegrityStream(arena, { blockLength: 4, zeroRuns: [{ minRun: 0, edgeLength: 4 }] }, 64)).toThrow(/integrityZeroRunsStateBytes/);
    });
    expect(k.integrityZeroRunsStateBytes(4, 0)).toBe(-1);
  });
});
