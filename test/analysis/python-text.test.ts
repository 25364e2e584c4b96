// Python-compatible formatting and whitespace rules (voice-metrics.md §7).
import { describe, expect, it } from "vitest";
import { countWords, fmt2, pySplit, pyStrip } from "../../src/analysis/python-text.js";

describe("fmt2 (Python {:.2f})", () => {
  it.each([
    [0.125, "0.12"], [0.375, "0.38"], [0.625, "0.62"], [0.875, "0.88"], [1.005, "1.00"], [0.645, "0.65"],
    [0.6799999999999999, "0.68"], [0.7000000000000001, "0.70"], [1.125, "1.12"], [0, "0.00"], [1, "1.00"],
  ])("%s → %s", (x, s) => expect(fmt2(x)).toBe(s));
});

describe("Python whitespace", () => {
  it("split uses Python's set (U+001C–U+001F, U+0085) and not U+FEFF", () => {
    expect(pySplit("a\u001cb\u0085c\u3000d")).toEqual(["a", "b", "c", "d"]);
    expect(pySplit("a\ufeffb")).toEqual(["a\ufeffb"]);
    expect(pySplit("  ")).toEqual([]);
  });
  it("strip", () => expect(pyStrip("\u0085 hi \u001f")).toBe("hi"));
  it("countWords is len(str.split())", () => {
    expect(["", "  ", "one", " a  b\tc\u2028d ", "a\ufeffb c"].map(countWords)).toEqual([0, 0, 1, 4, 2]);
  });
});
