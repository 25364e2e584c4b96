// One clip in the arena: downmix and mixdown kernels ≡ their twins bit for bit, parity over the in-arena mono mix, one copy per clip, sessions that refuse nesting, kernel statuses as KernelError.
import { describe, expect, it } from "vitest";
import { downmixTruncating } from "../../src/audio/convert.js";
import { ClipKernels } from "../../src/dsp/clip-kernels.js";
import { checkStatus, expectResult, KernelError } from "../../src/dsp/kernel-error.js";
import { BAD_ARGUMENT, INDEX_FULL } from "../../src/dsp/kernel-status.js";
import { measureParityFrames } from "../../src/dsp/parity.js";
import { mixdownMeanReference } from "../../src/dsp/reference/interleaved.js";
import { pcmCopyStats, withArena } from "../../src/dsp/wasm.js";
import { seededRandom } from "../helpers/random.js";

const random = seededRandom(7117);
const LENGTHS = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 1001, 24001];

/** Interleaved int16 with full-scale extremes and zeros among random values. */
function interleaved(frames: number, channels: number): Int16Array {
  const x = new Int16Array(frames * channels);
  for (let i = 0; i < x.length; i++) {
    const r = random();
    x[i] = r < 0.05 ? -32768 : r < 0.1 ? 32767 : r < 0.12 ? 0 : Math.floor(random() * 65536) - 32768;
  }
  return x;
}

/** Floats with signed zeros, subnormals, tiny and large magnitudes, so f32 rounding of sums and products matters. */
function awkwardFloats(n: number): Float32Array {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const r = random();
    x[i] = r < 0.05 ? -0 : r < 0.1 ? 1e-42 * (random() - 0.5) : r < 0.2 ? 1e30 * (random() - 0.5) : (random() - 0.5) * 2 ** Math.floor(random() * 20 - 10);
  }
  return x;
}

const bits = (x: Float32Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

describe("downmixTruncatingI16 ≡ downmixTruncating (deepeval's mono mix)", () => {
  it.each([1, 2, 3, 5, 6])("%i channel(s), every length", (channels) => {
    for (const frames of LENGTHS) {
      const x = interleaved(frames, channels);
      const want = downmixTruncating(x, channels);
      const got = withArena((arena) => {
        const input = arena.copyPcm(x);
        const out = arena.allocI16(frames);
        expectResult(arena.k.downmixTruncatingI16(input, channels, frames, out), frames, "downmixTruncatingI16");
        return arena.i16(out, frames).slice();
      });
      expect(Array.from(got), `frames=${frames}`).toEqual(Array.from(want));
    }
  });

  it("refuses a channel count below 1 or a negative length", () => {
    const k = withArena((arena) => [arena.k.downmixTruncatingI16(0, 0, 4, 0), arena.k.downmixTruncatingI16(0, 2, -1, 0)]);
    expect(k).toEqual([BAD_ARGUMENT, BAD_ARGUMENT]);
  });
});

describe("mixdownMeanF32 ≡ the Float32Array mean, bit for bit", () => {
  it.each([2, 3, 5, 6])("%i channels, every length", (channels) => {
    for (const frames of LENGTHS) {
      const planar = Array.from({ length: channels }, () => awkwardFloats(frames));
      const want = mixdownMeanReference(planar);
      const got = withArena((arena) => {
        const input = arena.allocF32(frames * channels);
        planar.forEach((c, i) => arena.copyPcmTo(input + 4 * i * frames, c));
        const out = arena.allocF32(frames);
        expectResult(arena.k.mixdownMeanF32(input, channels, frames, out), frames, "mixdownMeanF32");
        return arena.f32(out, frames).slice();
      });
      expect(bits(got).equals(bits(want)), `frames=${frames}`).toBe(true);
    }
  });
});

describe("ClipKernels", () => {
  it.each([1, 2, 3])("parity over the in-arena mono mix = measureParityFrames of the JS downmix, %i channel(s)", (channels) => {
    for (const frames of [1, 7, 160, 4001, 16000]) {
      const x = interleaved(frames, channels);
      const want = measureParityFrames(downmixTruncating(x, channels), 8000);
      const got = withArena((arena) => new ClipKernels(arena, { samples: x, channels, sampleRate: 8000 }).parityFrames());
      expect(got, `frames=${frames}`).toEqual(want);
    }
  });

  it("copies an int16 clip into the arena once, and a float clip's exact samples once more", () => {
    const x = interleaved(4000, 2);
    const floats = [awkwardFloats(4000), awkwardFloats(4000)];
    const copiesOf = (run: () => void) => {
      const before = pcmCopyStats();
      run();
      const after = pcmCopyStats();
      return { copies: after.copies - before.copies, samples: after.samples - before.samples };
    };
    const everything = (clip: ClipKernels) => {
      clip.parityFrames();
      const planar = clip.planar();
      planar.loudness({});
      planar.mixdown("mean").speechRuns({ peakPercentile: 99, noisePercentile: 10, noiseHalfWindowFrames: 500, enterAboveNoiseDb: 12, enterBelowPeakDb: 35, stayBelowEnterDb: 6, hangoverFrames: 20 });
      clip.planar().channel(1).loudness({});
    };
    expect(copiesOf(() => withArena((arena) => everything(new ClipKernels(arena, { samples: x, channels: 2, sampleRate: 16000 }))))).toEqual({ copies: 1, samples: 8000 });
    expect(copiesOf(() => withArena((arena) => everything(new ClipKernels(arena, { samples: x, channels: 2, sampleRate: 16000, floatChannels: floats }))))).toEqual({
      copies: 3,
      samples: 16000,
    });
  });
});

describe("arena sessions and kernel errors", () => {
  it("a session refuses to nest, and the thread's arena is usable again after it", () => {
    let inner: unknown;
    withArena(() => {
      try {
        withArena(() => 0);
      } catch (e) {
        inner = e;
      }
    });
    expect(inner).toBeInstanceOf(KernelError);
    expect(inner).toMatchObject({ code: "KERNEL_ERROR", failure: "ARENA_BUSY" });
    expect(withArena((arena) => arena.used())).toBe(0);
    expect(() => withArena(() => { throw new Error("inside"); })).toThrow("inside");
    expect(withArena(() => 1)).toBe(1);
  });

  it("statuses map to failures with the kernel named; counts pass through", () => {
    expect(checkStatus(7, "k")).toBe(7);
    expect(() => checkStatus(BAD_ARGUMENT, "frameStatsI16")).toThrow(expect.objectContaining({ failure: "BAD_ARGUMENT", kernel: "frameStatsI16", code: "KERNEL_ERROR" }));
    expect(() => checkStatus(INDEX_FULL, "locateInit")).toThrow(expect.objectContaining({ failure: "INDEX_FULL" }));
    expect(() => checkStatus(-9, "k")).toThrow(expect.objectContaining({ failure: "UNKNOWN_STATUS" }));
    expect(() => expectResult(3, 4, "k")).toThrow(expect.objectContaining({ failure: "UNEXPECTED_RESULT", message: "kernel k: returned 3, expected 4 (UNEXPECTED_RESULT)" }));
  });
});
