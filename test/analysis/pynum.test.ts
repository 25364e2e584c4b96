// pyMean / pyPstdev against CPython 3.11.7's statistics.mean / statistics.pstdev (values printed with repr by python3).
import { describe, expect, it } from "vitest";
import { pyMean, pyPstdev } from "../../src/analysis/pynum.js";

/** [case, values, mean, pstdev] from `python3 -c "import statistics; print(repr(statistics.mean(v)), repr(statistics.pstdev(v)))"`. */
const PYTHON_CASES: [string, number[], number, number][] = [
  ["doc example", [1.5, 2.5, 2.5, 2.75, 3.25, 4.75], 2.875, 0.986893273527251],
  ["two pitches", [195.1219512195122, 190.47619047619048], 192.79907084785134, 2.322880371660858],
  ["fixture tone 190 Hz frames", [195.1219512195122, 190.47619047619048, 190.47619047619048, 195.1219512195122, 190.47619047619048, 190.47619047619048, 195.1219512195122], 192.46723079475694, 2.299055327783476],
  ["cancellation near 1e8", [100000000.1, 100000000.2, 100000000.3], 100000000.2, 0.0816496593094474],
  ["tenths", [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], 0.1, 0.0],
  ["catastrophic sum", [1e+16, 1.0, -1e+16], 0.3333333333333333, 8164965809277260.0],
  ["mixed signs", [-3.5, 2.25, -0.125, 7.0, 0.0, -0.0], 0.9375, 3.1899500387937114],
  ["single", [123.456], 123.456, 0.0],
  ["wide range", [1e+300, -1e+300, 1e-300, 3.0], 0.75, 7.071067811865476e+299],
  ["near overflow", [1.7e+308, 1.7e+308, 1.6e+308], 1.6666666666666666e+308, 4.714045207910315e+306],
  ["subnormals", [5e-324, 1e-323, 2.5e-320, 0.0], 6.255e-321, 1.0825e-320],
  ["tiny and normal", [2.2250738585072014e-308, 5e-324, 1e-310], 7.450246195024006e-309, 1.0465608160092805e-308],
  ["loudness dBFS", [-22.846532408851893, -25.80034, -22.28552, -27.264981, -34.620987], -26.563672081770378, 4.429775306719623],
  ["zcr", [0.12061388497186588, 0.0475197, 0.195524906768891, 0.02262641415088443], 0.09657122647291033, 0.06753474622458948],
];

/** Pitch-like lists v[i] = 8000 / (20 + (i·37 mod m)), i < n, built identically in Python: [case, n, m, mean, pstdev]. */
const PYTHON_FORMULA_CASES: [string, number, number, number, number][] = [
  ["pitch 63", 63, 95, 152.3954726194256, 83.82902107716754],
  ["pitch 1000", 1000, 95, 149.31061692111118, 80.52398342979234],
  ["pitch 5000 wide", 5000, 331, 69.96574772407943, 67.29045598101611],
];

const pitchList = (n: number, mod: number): number[] => Array.from({ length: n }, (_, i) => 8000 / (20 + ((i * 37) % mod)));

describe("pyMean and pyPstdev equal Python bit for bit", () => {
  it.each(PYTHON_CASES)("%s", (_name, values, mean, pstdev) => {
    expect(pyMean(values)).toBe(mean);
    expect(pyPstdev(values)).toBe(pstdev);
  });

  it.each(PYTHON_FORMULA_CASES)("%s", (_name, n, mod, mean, pstdev) => {
    const values = pitchList(n, mod);
    expect(pyMean(values)).toBe(mean);
    expect(pyPstdev(values)).toBe(pstdev);
    expect(pyMean(Float64Array.from(values))).toBe(mean);
  });

  it("differs from naive float64 arithmetic where Python does", () => {
    const values = [1e16, 1.0, -1e16];
    expect(values.reduce((a, b) => a + b, 0) / values.length).not.toBe(pyMean(values));
    expect(pyMean(values)).toBe(0.3333333333333333);
  });
});

describe("edge behaviour", () => {
  it("rejects empty input as Python raises StatisticsError", () => {
    expect(() => pyMean([])).toThrow(RangeError);
    expect(() => pyPstdev([])).toThrow(RangeError);
  });

  it("follows Python for non-finite values: mean is their float sum over n, pstdev raises", () => {
    expect(pyMean([Infinity, 1])).toBe(Infinity);
    expect(pyMean([-Infinity, 1, 2])).toBe(-Infinity);
    expect(pyMean([Infinity, -Infinity])).toBeNaN();
    expect(pyMean([NaN, 1])).toBeNaN();
    expect(() => pyPstdev([Infinity, 1])).toThrow(RangeError);
  });

  it("is exact for constant data and invariant under order", () => {
    expect(pyPstdev(new Array(1001).fill(190.47619047619048))).toBe(0);
    expect(pyMean(new Array(1001).fill(190.47619047619048))).toBe(190.47619047619048);
    const values = pitchList(500, 95);
    const reversed = [...values].reverse();
    expect(pyMean(reversed)).toBe(pyMean(values));
    expect(pyPstdev(reversed)).toBe(pyPstdev(values));
  });
});
