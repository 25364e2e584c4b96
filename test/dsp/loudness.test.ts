// EBU Tech 3341 / 3342 conformance (synthesised per acoustics.md §1.7), K-filter table check and kernel-vs-twin properties.
import { describe, expect, it } from "vitest";
import { LoudnessMeter, type LoudnessMeasurement } from "../../src/dsp/loudness.js";
import { designKWeighting, measureLoudnessReference } from "../../src/dsp/reference/loudness.js";
import { truePeakReference } from "../../src/dsp/reference/true-peak.js";
import { fadedSine, seededRandom, sineSequence, whiteNoise, type Segment } from "../helpers/signals.js";

const FS = 48000;

function stereo(segments: Segment[]): Float32Array[] {
  const x = sineSequence(segments, FS);
  return [x, x];
}

function measure(planar: Float32Array[], sampleRate = FS): LoudnessMeasurement {
  const meter = new LoudnessMeter(planar.length, sampleRate);
  meter.addFrames(planar);
  return meter.result();
}

/** Feed 10 ms chunks and collect the momentary and short-term readings after each one. */
function readings(planar: Float32Array[]): { m: (number | null)[]; s: (number | null)[] } {
  const meter = new LoudnessMeter(planar.length, FS, { truePeak: false });
  const step = FS / 100;
  const m: (number | null)[] = [], s: (number | null)[] = [];
  for (let i = 0; i + step <= planar[0].length; i += step) {
    meter.addFrames(planar.map((p) => p.subarray(i, i + step)));
    m.push(meter.momentaryLufs());
    s.push(meter.shortTermLufs());
  }
  return { m, s };
}

const maxOf = (values: (number | null)[]) => Math.max(...values.map((v) => v ?? -Infinity));

describe("EBU Tech 3341 (EBU Mode), synthesised", () => {
  it.each([
    [1, -23],
    [2, -33],
  ])("case %i: stereo 1 kHz at %i dBFS reads M, S, I within ±0.1", (_case, dbfs) => {
    const r = measure(stereo([{ seconds: 20, dbfs }]));
    expect(r.integratedLufs!).toBeCloseTo(dbfs, 0);
    expect(Math.abs(r.integratedLufs! - dbfs)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.momentaryMaxLufs! - dbfs)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.shortTermMaxLufs! - dbfs)).toBeLessThanOrEqual(0.1);
  });

  it.each([
    ["3", [{ seconds: 10, dbfs: -36 }, { seconds: 60, dbfs: -23 }, { seconds: 10, dbfs: -36 }]],
    ["4", [{ seconds: 10, dbfs: -72 }, { seconds: 10, dbfs: -36 }, { seconds: 60, dbfs: -23 }, { seconds: 10, dbfs: -36 }, { seconds: 10, dbfs: -72 }]],
    ["5", [{ seconds: 20, dbfs: -26 }, { seconds: 20.1, dbfs: -20 }, { seconds: 20, dbfs: -26 }]],
  ])("case %s: gated integrated loudness −23 ±0.1", (_case, segments) => {
    const r = measure(stereo(segments as Segment[]));
    expect(Math.abs(r.integratedLufs! + 23)).toBeLessThanOrEqual(0.1);
  });

  it("case 6: 5.0 channels with BS.1770 surround weights read −23 ±0.1", () => {
    const tone = (dbfs: number) => sineSequence([{ seconds: 20, dbfs }], FS);
    const r = measure([tone(-28), tone(-28), tone(-24), tone(-30), tone(-30)]);
    expect(Math.abs(r.integratedLufs! + 23)).toBeLessThanOrEqual(0.1);
  });

  it("case 9: short-term loudness is −23 ±0.1 and constant from 3 s on", () => {
    const cycle: Segment[] = [{ seconds: 1.34, dbfs: -20 }, { seconds: 1.66, dbfs: -30 }];
    const { s } = readings(stereo([0, 1, 2, 3, 4].flatMap(() => cycle)));
    const after = s.slice(299) as number[];
    for (const v of after) expect(Math.abs(v + 23)).toBeLessThanOrEqual(0.1);
  });

  it("case 10: max short-term loudness of each of 20 files is −23 ±0.1", () => {
    for (let i = 0; i < 20; i++) {
      const r = measure(stereo([{ seconds: i * 0.15, dbfs: null }, { seconds: 3, dbfs: -23 }, { seconds: 1, dbfs: null }]));
      expect(Math.abs(r.shortTermMaxLufs! + 23), `file ${i}`).toBeLessThanOrEqual(0.1);
    }
  });

  it("case 11: max short-term loudness inside each 6 s segment steps −38 … −19 ±0.1", () => {
    const segments: Segment[] = [];
    for (let i = 0; i < 20; i++) segments.push({ seconds: i * 0.15, dbfs: null }, { seconds: 3, dbfs: -38 + i }, { seconds: 3 - i * 0.15, dbfs: null });
    const { s } = readings(stereo(segments));
    for (let i = 0; i < 20; i++) {
      // Readings are 10 ms apart: segment i spans readings [600·i, 600·(i+1)).
      const inSegment = s.slice(600 * i, 600 * (i + 1));
      expect(Math.abs(maxOf(inSegment) - (-38 + i)), `segment ${i}`).toBeLessThanOrEqual(0.1);
    }
  });

  it("case 12: momentary loudness is −23 ±0.1 and constant from 1 s on", () => {
    const cycle: Segment[] = [{ seconds: 0.18, dbfs: -20 }, { seconds: 0.22, dbfs: -30 }];
    const { m } = readings(stereo(Array.from({ length: 25 }, () => cycle).flat()));
    for (const v of m.slice(99) as number[]) expect(Math.abs(v + 23)).toBeLessThanOrEqual(0.1);
  });

  it("case 13: max momentary loudness of each of 20 files is −23 ±0.1 (10 ms grid)", () => {
    for (let i = 0; i < 20; i++) {
      const r = measure(stereo([{ seconds: i * 0.02, dbfs: null }, { seconds: 0.4, dbfs: -23 }, { seconds: 1, dbfs: null }]));
      expect(Math.abs(r.momentaryMaxLufs! + 23), `file ${i}`).toBeLessThanOrEqual(0.1);
    }
  });

  it("case 14: max momentary loudness inside each 0.8 s segment steps −38 … −19 ±0.1", () => {
    const segments: Segment[] = [];
    for (let i = 0; i < 20; i++) segments.push({ seconds: i * 0.02, dbfs: null }, { seconds: 0.4, dbfs: -38 + i }, { seconds: 0.4 - i * 0.02, dbfs: null });
    const { m } = readings(stereo(segments));
    for (let i = 0; i < 20; i++) {
      const inSegment = m.slice(80 * i, 80 * (i + 1));
      expect(Math.abs(maxOf(inSegment) - (-38 + i)), `segment ${i}`).toBeLessThanOrEqual(0.1);
    }
  });

  it.each([
    [15, FS / 4, 0.5, 0, -6],
    [16, FS / 4, 0.5, 45, -6],
    [17, FS / 6, 0.5, 60, -6],
    [18, FS / 8, 0.5, 67.5, -6],
    [19, FS / 4, 1.41, 45, 3],
  ])("case %i: true peak of a %d Hz sine within +0.2/−0.4 dB", (_case, frequency, amplitude, phase, expected) => {
    const x = fadedSine(FS, frequency, amplitude, phase, 1, 0.01);
    const r = measure([x, x]);
    expect(r.truePeakDbtp!).toBeGreaterThanOrEqual(expected - 0.4);
    expect(r.truePeakDbtp!).toBeLessThanOrEqual(expected + 0.2);
  });
});

describe("EBU Tech 3342 (LRA), synthesised", () => {
  it.each([
    [1, [-20, -30], 10],
    [2, [-20, -15], 5],
    [3, [-40, -20], 20],
    [4, [-50, -35, -20, -35, -50], 15],
  ])("case %i: LRA within ±1 LU", (_case, levels, expected) => {
    const r = measure(stereo(levels.map((dbfs) => ({ seconds: 20, dbfs }))));
    expect(Math.abs(r.loudnessRangeLu! - expected)).toBeLessThanOrEqual(1);
  });
});

describe("K-weighting", () => {
  const TABLE = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585, 1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621];

  it("the any-rate design reproduces the BS.1770 48 kHz table (twin and kernel)", () => {
    const [shelf, highPass] = designKWeighting(48000);
    [...shelf, ...highPass].forEach((c, i) => expect(Math.abs(c - TABLE[i])).toBeLessThanOrEqual(1e-15));
    new LoudnessMeter(1, 48000).coefficients().forEach((c, i) => expect(Math.abs(c - TABLE[i])).toBeLessThanOrEqual(2e-15));
  });

  it("a 0 dBFS 997 Hz mono sine reads −3.01 LUFS", () => {
    const r = measure([sineSequence([{ seconds: 5, dbfs: 0 }], FS, 997)]);
    expect(r.integratedLufs!).toBeCloseTo(-3.0103, 2);
  });

  it("digital silence gives nulls, never −Infinity", () => {
    const r = measure([new Float32Array(FS * 4)]);
    expect(r).toEqual({ integratedLufs: null, momentaryMaxLufs: null, shortTermMaxLufs: null, loudnessRangeLu: null, samplePeakDbfs: null, truePeakDbtp: null });
  });
});

describe("kernel ≈ twin on random signals", () => {
  const random = seededRandom(1770);
  const rates = [8000, 11025, 16000, 22050, 44100, 48000, 96000];
  it.each(rates)("loudness at %i Hz, chunked streaming equals whole-signal twin", (rate) => {
    for (const seconds of [0, 1 / rate, 0.39, 0.41, 3.0501, 7.3]) {
      const n = Math.round(seconds * rate) | (seconds > 1 ? 1 : 0);
      const channels = [whiteNoise(n, 0.3, random), whiteNoise(n, 0.05, random)];
      const meter = new LoudnessMeter(2, rate);
      let at = 0;
      while (at < n) {
        const step = 1 + Math.floor(random() * rate * 0.7);
        meter.addFrames(channels.map((c) => c.subarray(at, Math.min(n, at + step))));
        at += step;
      }
      const got = meter.result();
      const want = measureLoudnessReference(channels, rate);
      for (const key of ["integratedLufs", "momentaryMaxLufs", "shortTermMaxLufs", "loudnessRangeLu"] as const) {
        if (want[key] === null) expect(got[key], `${key} n=${n}`).toBeNull();
        else expect(Math.abs(got[key]! - want[key]!), `${key} n=${n}`).toBeLessThanOrEqual(1e-6);
      }
    }
  });

  it.each(rates.concat([192000]))("true peak at %i Hz equals the twin", (rate) => {
    for (const n of [0, 1, 5, 11, 12, 13, 1001]) {
      const x = whiteNoise(n, 0.9, random);
      const meter = new LoudnessMeter(1, rate);
      meter.addFrames([x.subarray(0, n >> 1)]);
      meter.addFrames([x.subarray(n >> 1)]);
      const got = meter.result().truePeakDbtp;
      const want = truePeakReference(x, rate);
      if (want === 0) expect(got).toBeNull();
      else expect(Math.abs(got! - 20 * Math.log10(want)), `n=${n}`).toBeLessThanOrEqual(1e-4);
    }
  });
});
