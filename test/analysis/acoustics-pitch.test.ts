// The F0 track's summary reads order statistics of the voiced periods without sorting a copy: equal to a sorted copy, rank by rank.
import { describe, expect, it } from "vitest";
import { orderStatistics } from "../../src/analysis/acoustics-pitch.js";

describe("orderStatistics (radix selection on f32 bits)", () => {
  it("gives the k-th smallest of positive f32 values in parts, as an ascending copy does, ties and one-bucket values included", () => {
    let s = 7;
    const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const cases: number[][] = [
      [5],
      [3, 3, 3, 3],
      Array.from({ length: 1000 }, () => 8 + 120 * random()),
      Array.from({ length: 1000 }, () => 1 + 2 ** -20 * Math.floor(64 * random())), // many values in one high bucket
      Array.from({ length: 3000 }, () => [10, 10.5, 1e-30, 3e38][Math.floor(4 * random())]),
    ];
    let checked = 0;
    for (const values of cases) {
      const f32 = Float32Array.from(values);
      const sorted = f32.slice().sort();
      // Split into parts of random length (some empty), as a list's blocks are.
      const parts: Float32Array[] = [];
      for (let at = 0; at < f32.length;) {
        const n = Math.min(f32.length - at, Math.floor(random() * 400));
        parts.push(f32.subarray(at, at + n));
        at += n;
      }
      const rank = orderStatistics(parts);
      for (let k = 0; k < sorted.length; k++) {
        expect(rank(k)).toBe(sorted[k]);
        checked++;
      }
      expect(() => rank(sorted.length)).toThrow(/rank/);
    }
    expect(checked).toBe(5005);
  });
});
