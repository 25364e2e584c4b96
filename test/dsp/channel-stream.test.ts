// Streaming speech runs ≡ RecordingKernels.speechRuns on the whole recording, exactly, at random chunk sizes from 1 frame up.
import { describe, expect, it } from "vitest";
import { speechRunOptions } from "../../src/analysis/acoustics-activity.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { memoryPcmSource, randomChunkSizes } from "../../src/audio/pcm-source.js";
import type { DecodedAudio } from "../../src/audio/types.js";
import { ChannelKernels, runsOfLevelsAt } from "../../src/dsp/channel-kernels.js";
import { ActivityStream, F32List, F64List, percentileInPlaceF32, percentileOfF32, readPlanarChunks, speechRunsInPlace, speechRunsOfLevels, speechRunsStream } from "../../src/dsp/channel-stream.js";
import { RecordingKernels } from "../../src/dsp/recording-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { speechLikeAudio } from "../helpers/stream-audio.js";

const OPTIONS = speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS);
const BLOCK = 1 << 17;

function wholeRuns(audio: DecodedAudio, channel: number): Int32Array {
  return withArena((arena) => new RecordingKernels(arena, audio).speechRuns(channel, OPTIONS));
}

/** The first `frames` frames of a recording. */
function head(audio: DecodedAudio, frames: number): DecodedAudio {
  return {
    ...audio,
    frames,
    samples: audio.samples.slice(0, frames * audio.channels),
    floatChannels: audio.floatChannels?.map((c) => c.slice(0, frames)),
  };
}

describe("speechRunsStream ≡ RecordingKernels.speechRuns", () => {
  it.each([8000, 16000, 22050, 24000, 44100, 48000])("short clips at %i Hz, chunks of 1–7 frames, mono and stereo, int16 and float", (rate) => {
    let seed = rate;
    for (const channels of [1, 2]) {
      for (const float of [false, true]) {
        const audio = speechLikeAudio(0.9, rate, channels, seed++, { float, noise: float ? 0.003 : 0.001 });
        for (let c = 0; c < channels; c++) {
          const expected = wholeRuns(audio, c);
          for (const max of [1, 3, 7]) {
            expect(speechRunsStream(memoryPcmSource(audio, randomChunkSizes(seed++, max)), c, OPTIONS)).toEqual(expected);
          }
        }
      }
    }
  });

  it.each([8000, 16000, 22050, 24000, 44100, 48000])("long recordings at %i Hz across filter blocks, random chunk sizes", (rate) => {
    const seconds = Math.max(4, (2.4 * BLOCK) / rate);
    let seed = 7 * rate;
    for (const [channels, float] of [[1, false], [2, true], [2, false]] as const) {
      const audio = speechLikeAudio(seconds, rate, channels, seed++, { float, clip: channels === 2, dc: float ? 0.01 : 0 });
      for (let c = 0; c < channels; c++) {
        const expected = wholeRuns(audio, c);
        expect(expected.length).toBeGreaterThan(4);
        for (const max of [1000, 65536, 300000]) {
          expect(speechRunsStream(memoryPcmSource(audio, randomChunkSizes(seed++, max)), c, OPTIONS)).toEqual(expected);
        }
      }
    }
  });

  it("activity levels equal the whole-clip kernel at lengths around a filter block's end", () => {
    const rate = 16000;
    const audio = speechLikeAudio((2 * BLOCK + 400) / rate, rate, 1, 99, { noise: 0.01 });
    const sub = rate / 100;
    let seed = 5;
    for (const frames of [0, 1, sub - 1, sub, 2 * sub, 2 * sub + 1, BLOCK - 1, BLOCK, BLOCK + 1, BLOCK + sub - 1, BLOCK + sub, BLOCK + sub + 1, BLOCK + sub + 2, BLOCK + 2 * sub, 2 * BLOCK, 2 * BLOCK + sub + 2]) {
      const clip = head(audio, frames);
      const expected = withArena((arena) => ChannelKernels.copyOf(arena, clip.samples.length ? Float32Array.from(clip.samples, (s) => s / 32768) : new Float32Array(0), rate).activityLevels());
      for (const max of [frames < 50 ? 3 : 4096, 200000]) {
        const levels = withArena((arena) => {
          const activity = new ActivityStream(arena, rate, arena.alloc(ActivityStream.yBytes(arena)));
          readPlanarChunks(arena, memoryPcmSource(clip, randomChunkSizes(seed++, max)), [0], false, (chunk) => activity.push(chunk.channel(0), chunk.frames));
          return activity.finish();
        });
        expect(levels, `${frames} frames`).toEqual(expected);
      }
    }
  });

  it("names a bad channel", () => {
    const audio = speechLikeAudio(0.2, 16000, 2, 1);
    expect(() => speechRunsStream(memoryPcmSource(audio), 2, OPTIONS)).toThrow(/channel must be an integer in \[0, 1\], got 2/);
  });
});

describe("speechRunsOfLevels (window-sized scratch, peak selected on the host) ≡ the whole-level kernel", () => {
  /** Deterministic levels: noise floors, bursts, long runs of equal values (ties), a few −∞-like floors. */
  function levelsOf(seed: number, n: number): Float32Array {
    let s = seed >>> 0;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const r = rnd();
      if (r < 0.1) out[i] = -120;
      else if (r < 0.2) out[i] = out[Math.max(0, i - 1)];
      else out[i] = (Math.floor(i / 137) % 3 === 0 ? -25 : -60) + 20 * rnd();
    }
    return out;
  }

  it("gives the same runs and the same percentile as the kernel's selection, over lengths, seeds and options", () => {
    const optionSets = [
      OPTIONS,
      { ...OPTIONS, peakPercentile: 50, noisePercentile: 5, noiseHalfWindowFrames: 7, hangoverFrames: 0 },
      { ...OPTIONS, peakPercentile: 99.9, noisePercentile: 33.3, noiseHalfWindowFrames: 1, hangoverFrames: 3 },
      { ...OPTIONS, peakPercentile: 100, noisePercentile: 0, noiseHalfWindowFrames: 5000, hangoverFrames: 1 },
    ];
    let checked = 0;
    for (const n of [0, 1, 2, 3, 17, 99, 100, 101, 1000, 4321, 30011]) {
      for (const seed of [1, 2, 3]) {
        const levels = levelsOf(seed * 7919 + n, n);
        for (const o of optionSets) {
          const expected = withArena((arena) => runsOfLevelsAt(arena, arena.putF32(levels), n, o));
          const got = withArena((arena) => speechRunsOfLevels(arena, levels.slice(), o));
          expect(got).toEqual(expected);
          checked += expected.length;
        }
        if (n > 0) {
          const sorted = Float64Array.from(levels).sort();
          for (const p of [0, 10, 50, 95, 99.5, 100]) {
            const r = ((n - 1) * p) / 100, k = Math.floor(r);
            const want = r === k ? sorted[k] : sorted[k] + (r - k) * (sorted[k + 1] - sorted[k]);
            expect(percentileInPlaceF32(levels.slice(), p)).toBe(want);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe("speechRunsInPlace (decided on the host, levels neither copied nor reordered) ≡ the whole-level kernel", () => {
  function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  }
  /** Levels with ties, both zeros, infinities and (when asked) NaNs, around a speech-like pattern. */
  function oddLevels(seed: number, n: number, nan: boolean): Float32Array {
    const rnd = rng(seed);
    const out = new Float32Array(n);
    const special = [0, -0, -Infinity, Infinity, -120, 1e-30, -1e-30, ...(nan ? [NaN] : [])];
    for (let i = 0; i < n; i++) {
      const r = rnd();
      if (r < 0.08) out[i] = special[Math.floor(rnd() * special.length)];
      else if (r < 0.2) out[i] = out[Math.max(0, i - 1)];
      else out[i] = (Math.floor(i / 113) % 3 === 0 ? -20 : -65) + 25 * rnd() - (i % 7 === 0 ? 40 : 0);
    }
    return out;
  }
  const optionSets = [
    OPTIONS,
    { ...OPTIONS, peakPercentile: 50, noisePercentile: 5, noiseHalfWindowFrames: 7, hangoverFrames: 0 },
    { ...OPTIONS, peakPercentile: 99.9, noisePercentile: 33.3, noiseHalfWindowFrames: 1, hangoverFrames: 3 },
    { ...OPTIONS, peakPercentile: 100, noisePercentile: 0, noiseHalfWindowFrames: 5000, hangoverFrames: 1 },
    { ...OPTIONS, peakPercentile: 0, noisePercentile: 100, noiseHalfWindowFrames: 60, hangoverFrames: 40, enterBelowPeakDb: 0, stayBelowEnterDb: 0 },
  ];

  it("gives the kernel's runs on speech-like levels, odd values and NaN, over lengths, seeds and options, and leaves the levels as they were", () => {
    let checked = 0;
    for (const n of [0, 1, 2, 3, 17, 99, 100, 101, 150, 1000, 4321, 30011]) {
      for (const seed of [1, 2, 3]) {
        for (const nan of [false, true]) {
          const levels = oddLevels(seed * 7919 + n, n, nan);
          const before = levels.slice();
          for (const o of optionSets) {
            const expected = withArena((arena) => runsOfLevelsAt(arena, arena.putF32(levels), n, o));
            expect(speechRunsInPlace(levels, o)).toEqual(expected);
            expect(Buffer.from(levels.buffer).equals(Buffer.from(before.buffer))).toBe(true);
            checked += expected.length;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it("percentileOfF32 equals percentileInPlaceF32 (the kernel's quickselect) bit for bit, NaN included", () => {
    const rnd = rng(42);
    for (const n of [1, 2, 3, 10, 101, 5000, 70_000]) {
      for (const nan of [false, true]) {
        const values = oddLevels(n * 31 + (nan ? 1 : 0), n, nan);
        // Values spread over many exponents and both signs, so the radix buckets differ in their high bits.
        for (let i = 0; i < n; i += 3) values[i] = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
        for (const p of [0, 0.1, 5, 10, 50, 90, 95, 99.5, 99.99, 100, 100 * rnd()]) {
          const want = percentileInPlaceF32(values.slice(), p);
          const got = percentileOfF32(values, p);
          // Only a zero's sign may differ (the quickselect does not order −0 and +0); every comparison treats them alike.
          if (want === 0) expect(got).toBe(0);
          else expect(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want))).toBe(true);
        }
      }
    }
  });

  it("refuses a noise window under one frame as the kernel does", () => {
    expect(() => speechRunsInPlace(new Float32Array(10), { ...OPTIONS, noiseHalfWindowFrames: 0 })).toThrow(/activitySpeechRunsGivenPeak/);
    expect(speechRunsInPlace(new Float32Array(0), { ...OPTIONS, noiseHalfWindowFrames: 0 })).toEqual(new Int32Array(0));
  });
});

describe("F32List", () => {
  it("keeps every value in order: at the expected length, past it (overflow into blocks), short of it, and without one", () => {
    const values = Float32Array.from({ length: 200_003 }, (_, i) => Math.fround(Math.sin(i) * 100));
    for (const expected of [0, 200_003, 150_000, 250_000]) {
      for (const piece of [1, 999, 65_536, 70_001]) {
        const list = new F32List(expected);
        for (let at = 0; at < values.length; at += piece) list.pushAll(values.subarray(at, Math.min(values.length, at + piece)));
        expect(list.length).toBe(values.length);
        const out = list.toArray();
        expect(out.length).toBe(values.length);
        let differing = 0;
        for (let i = 0; i < values.length; i++) if (!Object.is(out[i], values[i])) differing++;
        expect(differing).toBe(0);
        expect(list.length).toBe(0);
      }
    }
  });
});

describe("F64List", () => {
  it("keeps f64 values exactly, in order, pushed one by one or in ranges: parts() views them in blocks without a copy, reset() reuses them, toArray() copies them once", () => {
    const values = Float64Array.from({ length: 20_011 }, (_, i) => Math.sin(i) * 1e6 + i / 3);
    for (const block of [1, 7, 8192]) {
      const list = new F64List(block);
      for (let at = 0; at < values.length;) {
        if (at % 3 === 0) list.push(values[at++]);
        else {
          const n = Math.min(values.length - at, 1 + (at % 977));
          list.pushRange(values, at, n);
          at += n;
        }
      }
      expect(list.length).toBe(values.length);
      const parts = list.parts();
      expect(parts.every((p) => p.length <= block)).toBe(true);
      const joined = parts.flatMap((p) => Array.from(p));
      expect(joined).toEqual(Array.from(values));
      // reset() keeps the blocks for the next values: fewer values than before, then more.
      for (const n of [5_003, 20_011]) {
        list.reset();
        expect(list.length).toBe(0);
        expect(list.parts().reduce((sum, p) => sum + p.length, 0)).toBe(0);
        const next = values.subarray(0, n).map((v) => -v);
        list.pushRange(next, 0, n);
        expect(list.parts().flatMap((p) => Array.from(p))).toEqual(Array.from(next));
      }
      const out = list.toArray();
      expect(out).toBeInstanceOf(Float64Array);
      expect(Array.from(out)).toEqual(Array.from(values.map((v) => -v)));
      expect(list.length).toBe(0);
    }
  });
});
