// Speech activity and pauses: behaviour on synthetic bursts, pause statistics, and agreement with ffmpeg silencedetect on clean generated speech.
import { describe, expect, it } from "vitest";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { analyzeAcoustics } from "../../src/analysis/acoustics.js";
import { DEFAULT_ACOUSTICS_OPTIONS } from "../../src/analysis/acoustics-options.js";
import { computePauseStats } from "../../src/analysis/acoustics-activity.js";
import { percentile } from "../../src/analysis/percentile.js";
import { selectPercentile } from "../../src/dsp/reference/activity.js";
import { callWav, DEFAULT_CALL } from "../helpers/calls.js";
import { seededRandom, whiteNoise } from "../helpers/signals.js";
import { ESPEAK, FFMPEG, SOX, ffmpegSilences } from "../helpers/tools.js";
import { readWav } from "../helpers/wav.js";
import { report } from "../helpers/report.js";

describe("speech activity on synthetic bursts", () => {
  it("finds tone bursts in −60 dBFS noise within one 20 ms frame", () => {
    const fs = 16000;
    const x = whiteNoise(fs * 10, 0.001, seededRandom(3));
    const bursts: Array<[number, number]> = [[1, 2], [3.5, 4.5], [6, 8.2]];
    for (const [s, e] of bursts) for (let i = s * fs; i < e * fs; i++) x[i] += 0.3 * Math.sin((2 * Math.PI * 440 * i) / fs);
    const r = analyzeAcoustics([x], fs);
    expect(r.speech_segments.length).toBe(3);
    r.speech_segments.forEach(([s, e], i) => {
      expect(Math.abs(s - bursts[i][0])).toBeLessThanOrEqual(0.021);
      expect(Math.abs(e - bursts[i][1])).toBeLessThanOrEqual(0.021);
    });
    expect(r.pauses.count).toBe(2);
    expect(Math.abs(r.pauses.total_s - 3)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.speech_ratio! - 0.42)).toBeLessThanOrEqual(0.01);
  });

  // Below 8 kHz the §2.3 upper edge of 3800 Hz lies at or above Nyquist; the engine takes min(3800 Hz, 0.45·fs) there.
  it.each([1000, 2000, 4000, 6000])("finds 300 Hz tone bursts at %i Hz (band-pass below Nyquist)", (fs) => {
    const x = whiteNoise(fs * 6, 0.001, seededRandom(5));
    const bursts: Array<[number, number]> = [[1, 2], [3, 4.5]];
    for (const [s, e] of bursts) for (let i = s * fs; i < e * fs; i++) x[i] += 0.3 * Math.sin((2 * Math.PI * 300 * i) / fs);
    const r = analyzeAcoustics([x], fs);
    // One 20 ms frame; at 1 kHz the band-pass's ringing (a 20-sample frame) stretches the burst's end by one more.
    const tolerance = fs >= 2000 ? 0.021 : 0.041;
    expect(r.speech_segments.length).toBe(2);
    r.speech_segments.forEach(([s, e], i) => {
      expect(Math.abs(s - bursts[i][0])).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(e - bursts[i][1])).toBeLessThanOrEqual(tolerance);
    });
  });

  it("digital silence and steady noise contain no speech", () => {
    for (const x of [new Float32Array(16000 * 3), whiteNoise(16000 * 3, 0.05, seededRandom(4))]) {
      const r = analyzeAcoustics([x], 16000);
      expect(r.speech_segments).toEqual([]);
      expect(r.speech_ratio).toBe(0);
      expect(r.pauses).toEqual({ count: 0, total_s: 0, mean_s: null, p50_s: null, p95_s: null, longest_s: null, per_minute: 0 });
    }
  });
});

describe("pause statistics", () => {
  it("count, total, mean, interpolated percentiles, longest and rate per minute", () => {
    const segments: Array<[number, number]> = [[0, 1], [1.1, 2], [2.5, 3], [4, 5], [5.3, 6]];
    const p = computePauseStats(segments, 60, 0.25);
    expect(p.count).toBe(3);
    expect(p.total_s).toBeCloseTo(0.5 + 1 + 0.3, 12);
    expect(p.mean_s).toBeCloseTo(0.6, 12);
    expect(p.p50_s).toBeCloseTo(0.5, 12);
    expect(p.p95_s).toBeCloseTo(0.5 + 0.9 * 0.5, 12);
    expect(p.longest_s).toBeCloseTo(1, 12);
    expect(p.per_minute).toBe(3);
  });
});

describe.skipIf(!(FFMPEG && ESPEAK && SOX))("pauses vs ffmpeg silencedetect on clean generated speech", () => {
  if (!(FFMPEG && ESPEAK && SOX)) console.warn("ffmpeg, espeak-ng or sox missing: pause cross-check skipped");
  it.each([8000, 16000, 24000, 48000])("%i Hz: count within ±1 per minute, total within 10 percent", (rate) => {
    const path = callWav({ ...DEFAULT_CALL, repeats: 2 }, rate);
    const audio = readWav(path);
    const durationS = audio.channels[0].length / rate;
    const ours = analyzeAcoustics(audio.channels, rate).pauses;
    // Matched threshold: our entry level P − 35 dB, P the 99th percentile of our frame levels.
    const levels = withArena((arena) => ChannelKernels.copyOf(arena, audio.channels[0], rate).activityLevels()).sort();
    const noiseDb = Math.round(percentile(levels, 99)! - DEFAULT_ACOUSTICS_OPTIONS.vadEnterBelowPeakDb);
    const theirs = ffmpegSilences(path, noiseDb, DEFAULT_ACOUSTICS_OPTIONS.minPauseS)
      .filter(([s, e]) => s > 0.001 && e < durationS - 0.001);
    const theirTotal = theirs.reduce((t, [s, e]) => t + (e - s), 0);
    const minutes = durationS / 60;
    report(`${rate} Hz (silencedetect n=${noiseDb}dB): pauses ${ours.count}/${theirs.length}, total ${ours.total_s.toFixed(2)}/${theirTotal.toFixed(2)} s`);
    expect(Math.abs(ours.count - theirs.length) / minutes).toBeLessThanOrEqual(1);
    expect(Math.abs(ours.total_s - theirTotal) / theirTotal).toBeLessThanOrEqual(0.1);
  }, 60000);
});

describe("selectPercentile", () => {
  it("equals the sorted, interpolated percentile", () => {
    const random = seededRandom(12);
    for (const n of [1, 2, 3, 10, 101, 1000]) {
      const values = Array.from({ length: n + 10 }, () => Math.round(random() * 50) / 2);
      const sorted = values.slice(5, 5 + n).sort((a, b) => a - b);
      for (const p of [0, 10, 50, 99, 100]) {
        expect(selectPercentile(values, 5, 5 + n, p, new Float64Array(n))).toBeCloseTo(percentile(sorted, p)!, 12);
      }
    }
  });
});
