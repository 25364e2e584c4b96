// The acoustics library API: options and defaults, the exact block keys, null handling, multichannel input and streaming loudness.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeAcoustics, analyzeLoudness, createLoudnessMeter } from "../../src/analysis/acoustics.js";
import { DEFAULT_ACOUSTICS_OPTIONS, resolveAcousticsOptions } from "../../src/analysis/acoustics-options.js";
import { seededRandom, sineSequence, whiteNoise } from "../helpers/signals.js";
import { readWav } from "../helpers/wav.js";

const BLOCK_KEYS = [
  "integrated_lufs", "momentary_max_lufs", "short_term_max_lufs", "lra_lu", "sample_peak_dbfs", "true_peak_dbtp",
  "speech_ratio", "speech_segments", "pauses", "syllables_per_s", "articulation_rate", "words_per_minute",
  "wada_snr_db", "dc_offset", "clipping_runs", "bandwidth", "pitch",
];

describe("options", () => {
  it("defaults are frozen and resolve to themselves", () => {
    expect(Object.isFrozen(DEFAULT_ACOUSTICS_OPTIONS)).toBe(true);
    expect(resolveAcousticsOptions()).toEqual(DEFAULT_ACOUSTICS_OPTIONS);
    expect(DEFAULT_ACOUSTICS_OPTIONS.minPauseS).toBe(0.25);
    expect(DEFAULT_ACOUSTICS_OPTIONS.clipLevelDbfs).toBe(-0.45);
  });

  it("rejects out-of-range and unknown options naming the field", () => {
    expect(() => resolveAcousticsOptions({ minPauseS: -1 })).toThrow(/minPauseS.*\[0, 60\]/);
    expect(() => resolveAcousticsOptions({ pitchMinHz: 300, pitchMaxHz: 200 })).toThrow(/pitchMinHz/);
    expect(() => resolveAcousticsOptions({ bogus: 1 } as never)).toThrow(/bogus/);
  });
});

describe("analyzeAcoustics", () => {
  it("returns exactly the interfaces.md keys, JSON-safe, on digital silence", () => {
    const r = analyzeAcoustics([new Float32Array(16000 * 2)], 16000);
    expect(Object.keys(r)).toEqual(BLOCK_KEYS);
    expect(Object.keys(r.pauses)).toEqual(["count", "total_s", "mean_s", "p50_s", "p95_s", "longest_s", "per_minute"]);
    expect(Object.keys(r.pitch)).toEqual(["mean_hz", "median_hz", "std_semitones", "range_semitones", "voiced_fraction"]);
    expect(r.integrated_lufs).toBeNull();
    expect(r.true_peak_dbtp).toBeNull();
    expect(r.words_per_minute).toBeNull();
    expect(r.pitch.mean_hz).toBeNull();
    expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
  });

  it("handles empty and 1-sample clips", () => {
    for (const n of [0, 1]) expect(JSON.stringify(analyzeAcoustics([new Float32Array(n)], 8000))).not.toMatch(/NaN|Infinity/);
  });

  it("measures a stereo pair: loudness over both channels, the rest on their mean", () => {
    const left = sineSequence([{ seconds: 4, dbfs: -20 }], 16000);
    const r = analyzeAcoustics([left, new Float32Array(left.length)], 16000);
    const mono = analyzeLoudness([left], 16000);
    expect(r.integrated_lufs!).toBeCloseTo(mono.integrated_lufs!, 6);
    expect(r.sample_peak_dbfs!).toBeCloseTo(-20, 3);
  });

  it("tracks the pitch of 150 Hz harmonic bursts", () => {
    const fs = 16000;
    const x = whiteNoise(fs * 4, 0.001, seededRandom(9));
    // 1 s on, 0.5 s off: the adaptive VAD needs pauses to see the bursts as speech.
    for (let i = 0; i < x.length; i++) {
      if ((i / fs) % 1.5 >= 1) continue;
      for (let h = 1; h <= 6; h++) x[i] += (0.2 / h) * Math.sin((2 * Math.PI * 150 * h * i) / fs);
    }
    const r = analyzeAcoustics([x], fs);
    expect(r.pitch.median_hz!).toBeCloseTo(150, 0);
    expect(r.pitch.std_semitones!).toBeLessThan(0.1);
    expect(r.pitch.voiced_fraction!).toBeGreaterThan(0.95);
  });
});

describe("streaming loudness", () => {
  it("chunked frames give the same block as one call", () => {
    const x = whiteNoise(16000 * 7 + 5, 0.2, seededRandom(10));
    const meter = createLoudnessMeter(1, 16000);
    for (let at = 0; at < x.length; at += 4321) meter.addFrames([x.subarray(at, at + 4321)]);
    const whole = analyzeLoudness([x], 16000);
    const streamed = meter.result();
    for (const key of Object.keys(whole) as (keyof typeof whole)[]) expect(streamed[key]!).toBeCloseTo(whole[key]!, 9);
  });
});

const PARITY_DIR = "/work/shared/parity/deepeval-sim";
const parityFiles = existsSync(PARITY_DIR) ? readdirSync(PARITY_DIR).filter((f) => f.endsWith(".wav")) : [];

describe.skipIf(!parityFiles.length)("real speech (deepeval simulation recordings)", () => {
  it.each(parityFiles)("%s gives a plausible, JSON-safe block", (file) => {
    const audio = readWav(join(PARITY_DIR, file));
    const r = analyzeAcoustics(audio.channels, audio.sampleRate);
    expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
    expect(r.speech_ratio!).toBeGreaterThan(0.1);
    expect(r.speech_ratio!).toBeLessThanOrEqual(1);
    expect(r.pitch.median_hz!).toBeGreaterThan(60);
    expect(r.pitch.median_hz!).toBeLessThan(400);
    expect(r.articulation_rate!).toBeGreaterThan(2);
    expect(r.articulation_rate!).toBeLessThan(8);
    expect(r.bandwidth).toBe("super-wideband");
  });
});
