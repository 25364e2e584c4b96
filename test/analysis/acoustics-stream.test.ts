// measureStandardsStream ≡ measureAcoustics / measureLoudness on the whole decoded clip (what analyze writes), at random chunk sizes from 1 frame up.
import { describe, expect, it } from "vitest";
import { measureAcoustics, measureLoudness, type AcousticsBlock, type LoudnessBlock } from "../../src/analysis/acoustics.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { measureStandardsStream, type StandardsStreamResult } from "../../src/analysis/acoustics-stream.js";
import { memoryPcmSource, randomChunkSizes, type PcmChunk, type PcmSource } from "../../src/audio/pcm-source.js";
import type { DecodedAudio } from "../../src/audio/types.js";
import { ClipKernels, type PlanarKernels } from "../../src/dsp/clip-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { readFileSync } from "node:fs";
import { decodeAudio } from "../../src/audio/decode.js";
import { callWav, DEFAULT_CALL } from "../helpers/calls.js";
import { speechLikeAudio } from "../helpers/stream-audio.js";
import { ESPEAK, SOX } from "../helpers/tools.js";

/** What measureFile (src/scoring/analyze-file.ts) computes for `acoustics` / `channels_acoustics` today. */
function wholeClip(audio: DecodedAudio, o: AcousticsOptions, set: "loudness" | "standards", perChannel: boolean, transcript?: string): StandardsStreamResult {
  return withArena((arena) => {
    const planar = new ClipKernels(arena, audio).planar();
    const measure = (p: PlanarKernels, t?: string): AcousticsBlock | LoudnessBlock => (set === "loudness" ? measureLoudness(p, o) : measureAcoustics(p, o, t));
    const acoustics = measure(planar, transcript);
    if (!perChannel || planar.channels === 1) return { acoustics };
    return { acoustics, channels: Array.from({ length: planar.channels }, (_, c) => measure(planar.channel(c))) };
  });
}

/** Deep equality, numbers within 1e−9 relative (the kernels see the same blocks, so they are exact in practice; the check says which field differs). */
function expectClose(actual: unknown, expected: unknown, path = "result"): void {
  if (typeof expected === "number" && typeof actual === "number") {
    if (actual !== expected) expect(Math.abs(actual - expected), `${path}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-9 * Math.abs(expected));
    return;
  }
  if (expected === null || typeof expected !== "object") {
    expect(actual, path).toEqual(expected);
    return;
  }
  expect(typeof actual, path).toBe("object");
  expect(actual, path).not.toBeNull();
  const a = actual as Record<string, unknown>, e = expected as Record<string, unknown>;
  expect(Object.keys(a).sort(), path).toEqual(Object.keys(e).sort());
  for (const key of Object.keys(e)) expectClose(a[key], e[key], `${path}.${key}`);
}

let exact = 0, compared = 0;
function check(audio: DecodedAudio, sizes: (i: number) => number, set: "loudness" | "standards", perChannel: boolean, options: Partial<AcousticsOptions> = {}, transcript?: string): StandardsStreamResult {
  const o = resolveAcousticsOptions(options);
  const expected = wholeClip(audio, o, set, perChannel, transcript);
  const actual = measureStandardsStream(memoryPcmSource(audio, sizes), o, { set, perChannel, transcript });
  expectClose(actual, expected);
  compared++;
  if (JSON.stringify(actual) === JSON.stringify(expected)) exact++;
  return expected;
}

const RATES = [8000, 16000, 22050, 24000, 44100, 48000];

describe("measureStandardsStream ≡ the whole-clip standards set", () => {
  it.each(RATES)("short clips at %i Hz in chunks of 1–7 frames: mono and stereo, int16 and float", (rate) => {
    let seed = rate + 1;
    for (const channels of [1, 2]) {
      for (const float of [false, true]) {
        const audio = speechLikeAudio(1.3, rate, channels, seed++, { float, clip: float, dc: float ? 0.02 : 0 });
        const expected = check(audio, randomChunkSizes(seed++, 1 + (seed % 7)), "standards", true);
        expect((expected.acoustics as AcousticsBlock).speech_segments.length).toBeGreaterThan(0);
      }
    }
  });

  it.each(RATES)("recordings across loudness chunks and filter blocks at %i Hz, random chunk sizes, per channel", (rate) => {
    const seconds = Math.max(6, (2.2 * (1 << 18)) / rate);
    let seed = 3 * rate;
    for (const [channels, float] of [[1, true], [2, false]] as const) {
      const audio = speechLikeAudio(seconds, rate, channels, seed++, { float, clip: true, dc: 0.004, noise: 0.003 });
      for (const max of [997, 70000, 400000]) {
        const expected = check(audio, randomChunkSizes(seed++, max), "standards", true, {}, "one two three four five");
        const main = expected.acoustics as AcousticsBlock;
        // The signals exercise every measure.
        expect(main.speech_segments.length).toBeGreaterThan(3);
        expect(main.syllables_per_s).toBeGreaterThan(0);
        expect(main.pitch.mean_hz).not.toBeNull();
        expect(main.bandwidth).not.toBeNull();
        expect([main, ...((expected.channels ?? []) as AcousticsBlock[])].some((b) => b.clipping_runs > 0)).toBe(true);
        expect(main.words_per_minute).not.toBeNull();
      }
    }
  });

  it.skipIf(!ESPEAK || !SOX)("espeak-ng calls (two parties in stereo at 24 kHz, mono at 8 kHz), random chunk sizes (skipped without espeak-ng and sox)", () => {
    let seed = 31;
    for (const [channels, rate] of [[2, 24000], [1, 8000]] as const) {
      const audio = decodeAudio(readFileSync(callWav({ ...DEFAULT_CALL, channels }, rate)));
      for (const max of [5, 3000, 100000]) {
        if (max === 5 && rate > 8000) continue;
        const expected = check(audio, randomChunkSizes(seed++, max), "standards", true, {}, "hello there");
        expect((expected.acoustics as AcousticsBlock).syllables_per_s).toBeGreaterThan(1);
      }
    }
  });

  it("the loudness set, three channels, mixdown options and 5.1 weights", () => {
    let seed = 77;
    const audio = speechLikeAudio(7, 16000, 3, seed++, { noise: 0.01 });
    check(audio, randomChunkSizes(seed++, 5000), "loudness", true);
    check(audio, randomChunkSizes(seed++, 300000), "loudness", false, { truePeak: false });
    check(audio, randomChunkSizes(seed++, 40000), "standards", true, { mixdown: "first" });
    check(audio, randomChunkSizes(seed++, 40000), "standards", false, { mixdown: "mean", pitchMaxHz: 300, syllableVoicingCeilingHz: 700 });
    const surround = speechLikeAudio(2, 48000, 6, seed++, { float: true });
    check(surround, randomChunkSizes(seed++, 30000), "standards", false);
  });

  it("silence, noise, full-scale square, DC only, and clips shorter than a frame", () => {
    let seed = 5;
    const rate = 16000;
    const make = (frames: number, fill: (i: number) => number, channels = 1): DecodedAudio => {
      const samples = new Int16Array(frames * channels);
      for (let i = 0; i < samples.length; i++) samples[i] = Math.max(-32768, Math.min(32767, Math.round(fill(i) * 32768)));
      return { sampleRate: rate, channels, frames, samples, format: "wav/pcm16", warnings: [] };
    };
    let r = 1;
    const noise = () => ((r = (r * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const cases: DecodedAudio[] = [
      make(0, () => 0),
      make(1, () => 0.5),
      make(3, (i) => i / 4, 2),
      make(200, () => 0.3),
      make(rate * 3, () => 0),
      make(rate * 3, () => 0.2 * noise(), 2),
      make(rate * 2, (i) => (Math.floor(i / 40) % 2 ? 1 : -1)),
      make(rate * 2, () => 0.25),
    ];
    for (const audio of cases) {
      for (const max of [1, 6, 100000]) {
        if (max === 1 && audio.frames > 20000) continue;
        check(audio, randomChunkSizes(seed++, max), "standards", true);
        check(audio, randomChunkSizes(seed++, max), "loudness", true);
      }
    }
  });

  it("syllable voicing thresholds 0 and 1 (at 1, candidates whose voicing frame does not fit in the clip count, as the whole-clip kernel's aperiodicity 1 does)", () => {
    let seed = 97;
    for (const rate of [8000, 16000, 48000]) {
      for (const seconds of [0.9, 1.3, 2.05]) {
        const audio = speechLikeAudio(seconds, rate, 2, seed++, { noise: 0.001 });
        // A short intensity window and a long voicing frame (90 ms): peaks within 45 ms of either end have no whole voicing frame.
        for (const syllableVoicingThreshold of [0, 0.5, 1]) {
          check(audio, randomChunkSizes(seed++, 5000), "standards", true, { syllableVoicingThreshold, syllableIntensityFloorHz: 200, syllableVoicingFloorHz: 20 });
        }
      }
    }
  });

  it("a source that does not know its length (the contour is then kept whole): the same blocks", () => {
    let seed = 41;
    for (const channels of [1, 2]) {
      const audio = speechLikeAudio(6, 16000, channels, seed++, { noise: 0.003 });
      const o = resolveAcousticsOptions();
      const expected = wholeClip(audio, o, "standards", true);
      const unknown: PcmSource = { ...memoryPcmSource(audio, randomChunkSizes(seed++, 30000)), frames: null };
      const actual = measureStandardsStream(unknown, o, { set: "standards", perChannel: true });
      expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      expect((expected.acoustics as AcousticsBlock).syllables_per_s).toBeGreaterThan(0);
    }
  });

  it("reads the source at most twice per signal measured (mixdown, then each channel), once for the loudness set", () => {
    const audio = speechLikeAudio(3, 16000, 2, 11);
    let reads = 0;
    const counted = (s: PcmSource): PcmSource => ({ ...s, chunks: (max?: number): Iterable<PcmChunk> => { reads++; return s.chunks(max); } });
    const o = resolveAcousticsOptions();
    // Stereo per channel: three signals (the mixdown and each channel), each with speech, so two readings each.
    measureStandardsStream(counted(memoryPcmSource(audio, 4096)), o, { set: "standards", perChannel: true });
    expect(reads).toBe(6);
    reads = 0;
    measureStandardsStream(counted(memoryPcmSource(audio, 4096)), o, { set: "standards", perChannel: false });
    expect(reads).toBe(2);
    reads = 0;
    // A signal without speech has no frames to measure inside it: one reading.
    const silent = { ...audio, channels: 1, frames: audio.frames, samples: new Int16Array(audio.frames) };
    measureStandardsStream(counted(memoryPcmSource(silent, 4096)), o, { set: "standards", perChannel: true });
    expect(reads).toBe(1);
    reads = 0;
    measureStandardsStream(counted(memoryPcmSource(audio, 4096)), o, { set: "loudness", perChannel: true });
    expect(reads).toBe(1);
  });

  it("a source that changes length between readings, and a bad sample rate, are named", () => {
    const audio = speechLikeAudio(2, 16000, 1, 12);
    const source = memoryPcmSource(audio, 1000);
    let reading = 0;
    const shrinking: PcmSource = { ...source, chunks: (max?: number) => (reading++ === 0 ? source.chunks(max) : memoryPcmSource({ ...audio, frames: 1000, samples: audio.samples.subarray(0, 1000) }, 1000).chunks(max)) };
    expect(() => measureStandardsStream(shrinking, {}, { set: "standards", perChannel: false })).toThrow(/second reading/);
    expect(() => measureStandardsStream({ ...source, sampleRate: 500 }, {}, { set: "loudness", perChannel: false })).toThrow(/sampleRate/);
  });

  it("was exact, not merely close, on every comparison", () => {
    expect(compared).toBeGreaterThan(100);
    expect(exact).toBe(compared);
  });
});
