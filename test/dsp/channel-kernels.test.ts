// Kernel ≈ twin property tests for the activity, intensity, YIN and signal-quality kernels on random signals, rates and lengths.
import { describe, expect, it } from "vitest";
import { ChannelKernels } from "../../src/dsp/channel-kernels.js";
import { withArena } from "../../src/dsp/wasm.js";
import { activityLevelsReference } from "../../src/dsp/reference/activity.js";
import { signalStatsReference, powerSpectrumReference } from "../../src/dsp/reference/signal.js";
import { intensityReference } from "../../src/dsp/reference/syllables.js";
import { decimateReference, yinFrameReference } from "../../src/dsp/reference/yin.js";
import { seededRandom, whiteNoise } from "../helpers/signals.js";

const random = seededRandom(2002);
const RATES = [8000, 11025, 16000, 22050, 24000, 44100, 48000];

/** A noisy voiced-like signal: harmonics of a random F0 plus noise, random length. */
function voicedNoise(n: number, sampleRate: number): Float32Array {
  const f0 = 80 + 200 * random();
  const noise = whiteNoise(n, 0.05, random);
  for (let i = 0; i < n; i++) {
    for (let h = 1; h <= 5; h++) noise[i] += (0.3 / h) * Math.sin((2 * Math.PI * f0 * h * i) / sampleRate + h);
  }
  return noise;
}

function withKernels<T>(x: Float32Array, sampleRate: number, run: (k: ChannelKernels) => T): T {
  return withArena((arena) => run(ChannelKernels.copyOf(arena, x, sampleRate)));
}

const LENGTHS = (rate: number) => [0, 1, 7, Math.floor(rate * 0.02) - 1, Math.floor(rate * 0.37) | 1, Math.floor(rate * 3.1)];

describe("activity levels kernel ≈ twin", () => {
  it.each([1000, 2000, 4000, 6000, ...RATES])("%i Hz", (rate) => {
    for (const n of LENGTHS(rate)) {
      const x = voicedNoise(n, rate);
      const got = withKernels(x, rate, (k) => k.activityLevels());
      const want = activityLevelsReference(x, rate);
      expect(got.length, `n=${n}`).toBe(want.length);
      want.forEach((v, i) => expect(Math.abs(got[i] - v)).toBeLessThanOrEqual(1e-3));
    }
  });
});

describe("intensity kernel ≈ twin", () => {
  it.each(RATES)("%i Hz", (rate) => {
    const length = Math.round(0.064 * rate) | 1, step = Math.round(0.016 * rate);
    for (const n of [0, 1, length - 1, length, length + step * 7 + 3]) {
      const x = voicedNoise(n, rate);
      const got = withKernels(x, rate, (k) => k.intensity(length, step, 20));
      const want = intensityReference(x, length, step, 20);
      expect(got.length, `n=${n}`).toBe(want.length);
      want.forEach((v, i) => expect(Math.abs(got[i] - v)).toBeLessThanOrEqual(1e-3));
    }
  });
});

describe("YIN kernels ≈ twin", () => {
  it.each(RATES)("decimation and YIN frames at %i Hz", (rate) => {
    const factor = Math.max(1, Math.floor(rate / 4000));
    const x = voicedNoise(Math.floor(rate * 3.1) | 1, rate);
    withKernels(x, rate, (k) => {
      const decimatedRate = k.decimateForPitch(1000, factor);
      expect(decimatedRate).toBe(rate / factor);
      const reference = decimateReference(x, rate, 1000, factor);
      const window = Math.round(0.025 * decimatedRate), tauMin = Math.floor(decimatedRate / 400), tauMax = Math.ceil(decimatedRate / 60);
      const starts = Int32Array.from([-1, 0, 17, 301, reference.length - window - tauMax, reference.length - window - tauMax + 1]);
      const got = k.yin(starts, window, tauMin, tauMax, 0.1);
      starts.forEach((s, i) => {
        const want = yinFrameReference(reference, s, window, tauMin, tauMax, 0.1);
        expect(Math.abs(got.period[i] - want.period), `start ${s}`).toBeLessThanOrEqual(1e-3);
        expect(Math.abs(got.aperiodicity[i] - want.aperiodicity), `start ${s}`).toBeLessThanOrEqual(1e-4);
      });
    });
  });

  it("finds the period of a 200 Hz tone", () => {
    const rate = 16000;
    const x = Float32Array.from({ length: rate }, (_, i) => Math.sin((2 * Math.PI * 200 * i) / rate));
    withKernels(x, rate, (k) => {
      const r = k.decimateForPitch(1000, 4);
      const { period, aperiodicity } = k.yin(Int32Array.from([100, 1000]), 100, 10, 67, 0.1);
      for (let i = 0; i < 2; i++) {
        expect(r / period[i]).toBeCloseTo(200, 0);
        expect(aperiodicity[i]).toBeLessThan(0.05);
      }
    });
  });
});

describe("signal-quality kernels ≈ twin", () => {
  it.each([0, 1, 2, 3, 4, 5, 7, 1001, 48001])("stats over %i samples", (n) => {
    const x = whiteNoise(n, 1.2, random).map((v) => Math.max(-1, Math.min(1, v)));
    // Make some exact runs of clipped samples of lengths 1…5.
    for (let r = 1; r <= 5 && n > 40 * r; r++) x.fill(1, 20 * r, 20 * r + r);
    const got = withKernels(x, 16000, (k) => k.stats(0.95, 3));
    const want = signalStatsReference(x, Math.fround(0.95), 3);
    expect(got.clippingRuns).toBe(want.clippingRuns);
    expect(got.clippedSamples).toBe(want.clippedSamples);
    expect(Math.abs(got.sum - want.sum)).toBeLessThanOrEqual(1e-9 * (n + 1));
    expect(Math.abs(got.sumAbs - want.sumAbs)).toBeLessThanOrEqual(1e-9 * (n + 1));
    expect(Math.abs(got.sumLn - want.sumLn)).toBeLessThanOrEqual(2e-6 * (n + 1));
  });

  it("spectrum of random frames equals the DFT definition", () => {
    const x = whiteNoise(3000, 0.5, random);
    const starts = [0, 100, 2999, 2000];
    const got = withKernels(x, 16000, (k) => k.spectrum(Int32Array.from(starts), 64));
    const want = powerSpectrumReference(x, starts, 64);
    expect(got.frames).toBe(3);
    want.forEach((v, i) => expect(Math.abs(got.power[i] - v)).toBeLessThanOrEqual(1e-9 * (1 + v)));
  });
});
