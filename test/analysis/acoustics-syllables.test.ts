// Speaking rate from syllable nuclei on espeak-ng speech at five rates (acoustics.md §3.2), plus the peak parser.
import { describe, expect, it } from "vitest";
import { analyzeAcoustics } from "../../src/analysis/acoustics.js";
import { ContourPeaks, findDipPeakDip } from "../../src/analysis/acoustics-syllables.js";
import { percentile } from "../../src/analysis/percentile.js";
import { countWords } from "../../src/analysis/python-text.js";
import { callWav, DEFAULT_CALL, SENTENCES } from "../helpers/calls.js";
import { ESPEAK, SOX } from "../helpers/tools.js";
import { readWav } from "../helpers/wav.js";
import { report } from "../helpers/report.js";

/** Syllables of SENTENCES counted by hand from the text (dictionary syllabification). */
const KNOWN_SYLLABLES = 11 + 12 + 10 + 12 + 9 + 10 + 9 + 13 + 8 + 11;
const RATES_WPM = [100, 160, 220, 280, 350];

describe("dip-peak-dip parser", () => {
  it("keeps peaks with a 2 dB dip on both sides only", () => {
    const contour = [0, 5, 2.5, 10, 9, 12, 3, 4, 3.5, 8, 0];
    expect(findDipPeakDip(contour, 2)).toEqual([1, 5, 9]);
  });
});

describe("ContourPeaks (the contour fed in pieces, not held)", () => {
  it("finds findDipPeakDip's peaks, refined parabolically, and max(P99 − d, min) of a sorted copy, with and without the length known", () => {
    let seed = 3;
    const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    let compared = 0;
    for (const n of [1, 2, 3, 5, 99, 100, 101, 1000, 25_003]) {
      for (const kind of ["wave", "steps", "flat"]) {
        const contour = Float32Array.from({ length: n }, (_, i) =>
          kind === "flat" ? 40 : kind === "steps" ? 30 + 5 * Math.floor(6 * random()) : 50 + 12 * Math.sin(i / 4 + 3 * random()) + 4 * random());
        // The whole-array computation as planSyllables made it before: peaks, refinePeak, percentile of a sorted copy.
        const peaks = findDipPeakDip(contour, 2);
        const refined = peaks.map((i) => {
          if (i <= 0 || i >= n - 1) return i;
          const a = contour[i - 1], b = contour[i], c = contour[i + 1];
          const curvature = a - 2 * b + c;
          return curvature < 0 ? i + (0.5 * (a - c)) / curvature : i;
        });
        const sorted = contour.slice().sort();
        for (const expected of [n, 0]) {
          const streamed = new ContourPeaks(2, expected);
          for (let at = 0; at < n;) {
            const m = Math.min(n - at, 1 + Math.floor(random() * 700));
            streamed.pushAll(contour.subarray(at, at + m));
            at += m;
          }
          expect(streamed.count).toBe(n);
          const got = streamed.peaks();
          expect(got.levels).toEqual(peaks.map((i) => contour[i]));
          expect(got.positions).toEqual(refined);
          if (n > 0) expect(streamed.threshold(25)).toBe(Math.max(percentile(sorted, 99)! - 25, sorted[0]));
          compared++;
        }
      }
    }
    expect(compared).toBe(54);
    const short = new ContourPeaks(2, 10);
    short.pushAll(new Float32Array(9));
    expect(() => short.threshold(25)).toThrow(/9 values, 10 were expected/);
  });
});

describe("word counts", () => {
  it("split on Python's whitespace set", () => {
    expect(countWords("  one\u0085two\u00a0three\tfour  ")).toBe(4);
    expect(countWords("")).toBe(0);
  });
});

describe.skipIf(!(ESPEAK && SOX))("syllable nuclei on espeak-ng speech", () => {
  if (!(ESPEAK && SOX)) console.warn("espeak-ng or sox missing: speaking-rate test skipped");
  it.each([16000, 8000])("at %i Hz: rate rises monotonically and counts are within 15 percent", (sampleRate) => {
    const perSecond: number[] = [];
    for (const wpm of RATES_WPM) {
      const audio = readWav(callWav({ ...DEFAULT_CALL, wpm }, sampleRate));
      const durationS = audio.channels[0].length / sampleRate;
      const r = analyzeAcoustics(audio.channels, sampleRate, {}, SENTENCES.join(" "));
      const nuclei = Math.round(r.syllables_per_s! * durationS);
      report(`${sampleRate} Hz ${wpm} wpm: ${nuclei}/${KNOWN_SYLLABLES} syllables, ${r.syllables_per_s!.toFixed(2)} syll/s, articulation ${r.articulation_rate!.toFixed(2)}, ${r.words_per_minute!.toFixed(0)} wpm`);
      expect(Math.abs(nuclei - KNOWN_SYLLABLES) / KNOWN_SYLLABLES).toBeLessThanOrEqual(0.15);
      perSecond.push(r.syllables_per_s!);
    }
    for (let i = 1; i < perSecond.length; i++) expect(perSecond[i]).toBeGreaterThan(perSecond[i - 1]);
  }, 60000);
});
