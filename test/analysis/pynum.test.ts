// pyMean / pyPstdev against CPython 3.11.7's statistics.mean / statistics.pstdev (values printed with repr by python3), and PyMoments (values given one at a time) against both.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pyMean, PyMoments, pyPstdev } from "../../src/analysis/pynum.js";

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

/** PyMoments over `values` added in the given order. */
function momentsOf(values: ArrayLike<number>): PyMoments {
  const m = new PyMoments();
  for (let i = 0; i < values.length; i++) m.add(values[i]);
  return m;
}

/** A seeded permutation of `values` (xorshift32 Fisher–Yates). */
function shuffled(values: number[], seed: number): number[] {
  const out = [...values];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Expects PyMoments over `values` (in order, reversed and shuffled) to give pyMean / pyPstdev bit for bit, or throw where they throw. */
function expectSameAsArrays(values: number[], label = ""): void {
  const mean = pyMean(values);
  const pstdev = values.every(Number.isFinite) ? pyPstdev(values) : null;
  for (const order of [values, [...values].reverse(), shuffled(values, values.length + 1)]) {
    const m = momentsOf(order);
    expect(m.count, label).toBe(values.length);
    expect(Object.is(m.mean(), mean), `${label} mean ${m.mean()} vs ${mean}`).toBe(true);
    if (pstdev === null) expect(() => m.pstdev(), label).toThrow(RangeError);
    else expect(Object.is(m.pstdev(), pstdev), `${label} pstdev ${m.pstdev()} vs ${pstdev}`).toBe(true);
  }
}

describe("PyMoments ≡ pyMean / pyPstdev of the same values", () => {
  it("equals Python on every recorded case, given one value at a time", () => {
    for (const [label, values, mean, pstdev] of PYTHON_CASES) {
      const m = momentsOf(values);
      expect(m.mean(), label).toBe(mean);
      expect(m.pstdev(), label).toBe(pstdev);
      expectSameAsArrays(values, label);
    }
    for (const [label, n, mod, mean, pstdev] of PYTHON_FORMULA_CASES) {
      const m = momentsOf(pitchList(n, mod));
      expect(m.mean(), label).toBe(mean);
      expect(m.pstdev(), label).toBe(pstdev);
    }
  });

  it("throws as Python does: no values, a non-finite value in pstdev", () => {
    expect(() => new PyMoments().mean()).toThrow(RangeError);
    expect(() => new PyMoments().pstdev()).toThrow(RangeError);
    expect(momentsOf([Infinity, 1]).mean()).toBe(Infinity);
    expect(momentsOf([Infinity, -Infinity, 3]).mean()).toBeNaN();
    expect(() => momentsOf([NaN, 1]).pstdev()).toThrow(RangeError);
  });

  it("adversarial sets: cancellation, magnitudes across the whole double range, subnormals, ties and signed zeros", () => {
    const sets: [string, number[]][] = [
      ["cancellation at 2^1023", [Number.MAX_VALUE, 1, -Number.MAX_VALUE, 2 ** -1074]],
      ["both ends", [2 ** 1000, 2 ** -1000, -(2 ** 1000), 2 ** -1074, 3, 2 ** 480, 2 ** -480, 2 ** 481, 2 ** -481]],
      ["at the expansion range bounds", [2 ** 480, -(2 ** 480), 2 ** -480, (2 ** 480) * (1 + 2 ** -52), 2 ** -480 * (1 - 2 ** -53)]],
      ["only out of range", [1e300, 3e299, -2e305, 1e-300, 5e-324]],
      ["subnormals only", [5e-324, 1e-323, 2.5e-320, 4e-310]],
      ["signed zeros", [0, -0, 0, -0]],
      ["one negative zero", [-0]],
      ["pstdev rounding ties", [1, 1 + 2 ** -52, 1 + 2 ** -51, 1 - 2 ** -53]],
      ["near overflow", [1.7e308, 1.7e308, 1.6e308, -1.7e308]],
      ["huge count of one pitch", new Array(20000).fill(190.47619047619048)],
      ["non-finite mixed", [Infinity, 1e300, 3, -Infinity]],
      ["NaN", [1, NaN, 2]],
    ];
    for (const [label, values] of sets) expectSameAsArrays(values, label);
  });

  it("random sets from the whole double range and pitch-like values (fast-check)", () => {
    const anyDouble = fc.double({ noNaN: true, noDefaultInfinity: true });
    const pitch = fc.double({ min: 40, max: 1200, noNaN: true });
    const scaled = fc.tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.integer({ min: -1074, max: 960 })).map(([m, e]) => m * 2 ** e);
    const value = fc.oneof(anyDouble, pitch, scaled, fc.constantFrom(0, -0, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 480, 2 ** -480));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 60 }), (values) => expectSameAsArrays(values)),
      { numRuns: 2000, seed: 11 },
    );
    fc.assert(
      fc.property(fc.array(pitch, { minLength: 1, maxLength: 3000 }), (values) => expectSameAsArrays(values)),
      { numRuns: 100, seed: 12 },
    );
  });

  it("400,000 pitch-like values (a 4-hour recording's 40 ms frames)", () => {
    const values = Array.from({ length: 400000 }, (_, i) => 8000 / (20 + ((i * 7919) % 331)) + (i % 3) * 2 ** -40);
    const m = momentsOf(values);
    expect(m.mean()).toBe(pyMean(values));
    expect(m.pstdev()).toBe(pyPstdev(values));
  });
});
