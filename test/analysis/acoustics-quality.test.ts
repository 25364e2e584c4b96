// WADA-SNR table and estimates, DC offset, clipping runs and bandwidth classes (acoustics.md §4, §5).
import { describe, expect, it } from "vitest";
import { analyzeAcoustics } from "../../src/analysis/acoustics.js";
import { wadaSnrFromStatistic } from "../../src/analysis/acoustics-quality.js";
import { WADA_SNR_MIN_DB, WADA_TABLE } from "../../src/dsp/wada-table.js";
import { seededRandom, whiteNoise } from "../helpers/signals.js";

describe("WADA-SNR table", () => {
  it("has 121 increasing values matching the published anchors", () => {
    expect(WADA_TABLE.length).toBe(121);
    expect(WADA_SNR_MIN_DB).toBe(-20);
    for (let i = 1; i < WADA_TABLE.length; i++) expect(WADA_TABLE[i]).toBeGreaterThan(WADA_TABLE[i - 1]);
    const anchors: Array<[number, number, number]> = [
      [-20, 0.40975, 0.002], [0, 0.46221, 0.002], [10, 0.66751, 0.002], [20, 0.95655, 0.002],
      [30, 1.19704, 0.01], [50, 1.4667, 0.01], [100, 1.63204, 0.01],
    ];
    for (const [snr, g, tolerance] of anchors) expect(Math.abs(WADA_TABLE[snr - WADA_SNR_MIN_DB] - g), `${snr} dB`).toBeLessThanOrEqual(tolerance);
  });

  it("interpolates linearly and clamps at the ends", () => {
    expect(wadaSnrFromStatistic(0)).toBe(-20);
    expect(wadaSnrFromStatistic(5)).toBe(100);
    expect(wadaSnrFromStatistic((WADA_TABLE[30] + WADA_TABLE[31]) / 2)).toBeCloseTo(10.5, 6);
  });

  it.each([0, 10, 20])("estimates the SNR of ±Gamma(0.4) speech in Gaussian noise at %i dB within 1 dB", (snr) => {
    const random = seededRandom(snr + 11);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    // Gamma(1.4) by Marsaglia & Tsang, then × U^(1/0.4) for Gamma(0.4).
    const d = 1.4 - 1 / 3, c = 1 / Math.sqrt(9 * d);
    const gamma = (): number => {
      for (;;) {
        const x = normal(), v = (1 + c * x) ** 3;
        if (v > 0 && Math.log(1 - random()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * Math.pow(1 - random(), 1 / 0.4);
      }
    };
    const n = 400000;
    const x = new Float32Array(n);
    const noiseGain = Math.sqrt(0.56 / Math.pow(10, snr / 10));
    for (let i = 0; i < n; i++) x[i] = 0.02 * ((random() < 0.5 ? -1 : 1) * gamma() + noiseGain * normal());
    const r = analyzeAcoustics([x], 16000);
    expect(Math.abs(r.wada_snr_db! - snr)).toBeLessThanOrEqual(1);
  });
});

describe("DC offset and clipping runs", () => {
  it("reports the mean as DC offset", () => {
    const x = whiteNoise(16000, 0.1, seededRandom(5)).map((v) => v + 0.01);
    expect(analyzeAcoustics([x], 16000).dc_offset!).toBeCloseTo(0.01, 3);
  });

  it("counts runs at or above −0.45 dBFS of ≥ 3 samples (≥ 2 at 8 kHz)", () => {
    for (const [rate, expected] of [[16000, 3], [8000, 4]] as const) {
      const x = whiteNoise(rate, 0.1, seededRandom(6));
      for (const [at, length] of [[100, 4], [400, 4], [700, 3], [1000, 2], [1300, 1]]) x.fill(0.96, at, at + length);
      expect(analyzeAcoustics([x], rate).clipping_runs, `${rate} Hz`).toBe(expected);
    }
  });

  it("honours a custom clipping level", () => {
    const x = whiteNoise(16000, 0.1, seededRandom(7));
    x.fill(0.5, 100, 110);
    expect(analyzeAcoustics([x], 16000).clipping_runs).toBe(0);
    expect(analyzeAcoustics([x], 16000, { clipLevelDbfs: -7 }).clipping_runs).toBe(1);
  });
});

describe("bandwidth classes", () => {
  /** 1 s bursts of equal-amplitude 100 Hz harmonics up to `topHz`, separated by 0.5 s of faint noise. */
  function bursts(sampleRate: number, topHz: number): Float32Array {
    const x = whiteNoise(sampleRate * 5, 1e-5, seededRandom(8));
    for (const start of [0.5, 2, 3.5]) {
      for (let i = Math.round(start * sampleRate); i < Math.round((start + 1) * sampleRate); i++) {
        let v = 0;
        for (let f = 100; f <= topHz; f += 100) v += Math.sin((2 * Math.PI * f * i) / sampleRate + f);
        x[i] += (0.3 * v) / Math.sqrt(topHz / 100);
      }
    }
    return x;
  }

  it.each([
    [8000, 3400, "narrowband"],
    [16000, 3400, "narrowband"],
    [16000, 7000, "wideband"],
    [48000, 7000, "wideband"],
    [48000, 14000, "super-wideband"],
    [48000, 20000, "fullband"],
  ] as const)("%i Hz with content to %i Hz is %s", (rate, top, expected) => {
    expect(analyzeAcoustics([bursts(rate, top)], rate).bandwidth).toBe(expected);
  });
});
