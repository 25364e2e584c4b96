// Property tests of the aligner and error rates: counts add up, the cost is the true minimum, ties never change the cost.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alignTokens,
  compareTranscripts,
  DEFAULT_ALIGNMENT_OPTIONS,
  resolveAlignmentOptions,
  resolveErrorRateOptions,
  sumErrorCounts,
  wordErrorRate,
  type Alignment,
  type AlignmentOptions,
} from "../../src/text/index.js";

const token = fc.constantFrom("a", "b", "c", "d");
const tokens = fc.array(token, { maxLength: 9 });
const RUNS = { numRuns: 400, seed: 4242 };

function cost(a: Alignment, w: AlignmentOptions = DEFAULT_ALIGNMENT_OPTIONS): number {
  return a.substitutions * w.substitutionCost + a.deletions * w.deletionCost + a.insertions * w.insertionCost;
}

/** The minimum cost by plain recursion over every alignment (an oracle independent of the table). */
function bruteForceCost(r: string[], h: string[], w: AlignmentOptions = DEFAULT_ALIGNMENT_OPTIONS): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === r.length) return (h.length - j) * w.insertionCost;
    if (j === h.length) return (r.length - i) * w.deletionCost;
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const v = Math.min(go(i + 1, j + 1) + (r[i] === h[j] ? 0 : w.substitutionCost), go(i + 1, j) + w.deletionCost, go(i, j + 1) + w.insertionCost);
    memo.set(key, v);
    return v;
  };
  return go(0, 0);
}

describe("alignTokens", () => {
  it("aligning a sequence with itself is all matches (WER 0)", () => {
    fc.assert(
      fc.property(tokens, (x) => {
        const a = alignTokens(x, x);
        expect(a.steps.every((s) => s.kind === "C")).toBe(true);
        expect(a.correct).toBe(x.length);
      }),
      RUNS,
    );
  });

  it("counts add up: C+S+D = reference length, C+S+I = hypothesis length; steps replay both sequences", () => {
    fc.assert(
      fc.property(tokens, tokens, (r, h) => {
        const a = alignTokens(r, h);
        expect(a.correct + a.substitutions + a.deletions).toBe(r.length);
        expect(a.correct + a.substitutions + a.insertions).toBe(h.length);
        expect(a.steps.filter((s) => s.ref !== null).map((s) => s.ref)).toEqual(r);
        expect(a.steps.filter((s) => s.hyp !== null).map((s) => s.hyp)).toEqual(h);
        for (const s of a.steps) {
          if (s.kind === "C") expect(s.ref).toBe(s.hyp);
          if (s.kind === "S") expect(s.ref).not.toBe(s.hyp);
        }
      }),
      RUNS,
    );
  });

  it("the chosen alignment has the minimum cost (brute-force oracle), default and other weights", () => {
    const weights = fc.record({ insertionCost: fc.integer({ min: 1, max: 6 }), deletionCost: fc.integer({ min: 1, max: 6 }), substitutionCost: fc.integer({ min: 1, max: 9 }) });
    fc.assert(
      fc.property(tokens, tokens, (r, h) => {
        expect(cost(alignTokens(r, h))).toBe(bruteForceCost(r, h));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(tokens, tokens, weights, (r, h, w) => {
        expect(cost(alignTokens(r, h, w), w)).toBe(bruteForceCost(r, h, w));
      }),
      RUNS,
    );
  });

  it("swapping reference and hypothesis keeps the cost and trades deletions for insertions in the difference", () => {
    fc.assert(
      fc.property(tokens, tokens, (r, h) => {
        const ab = alignTokens(r, h);
        const ba = alignTokens(h, r);
        expect(cost(ab)).toBe(cost(ba));
        expect(ab.deletions - ab.insertions).toBe(ba.insertions - ba.deletions);
      }),
      RUNS,
    );
  });

  it("a common last token is a match and leaves the rest of the alignment unchanged", () => {
    fc.assert(
      fc.property(tokens, tokens, token, (r, h, w) => {
        const base = alignTokens(r, h);
        const longer = alignTokens([...r, w], [...h, w]);
        expect(longer.steps).toEqual([...base.steps, { kind: "C", ref: w, hyp: w }]);
      }),
      RUNS,
    );
  });

  it("a substitution costs less than a deletion plus an insertion with the default weights", () => {
    expect(alignTokens(["a"], ["b"]).steps).toEqual([{ kind: "S", ref: "a", hyp: "b" }]);
    // With a substitution dearer than both, the same pair is a deletion and an insertion.
    const a = alignTokens(["a"], ["b"], { substitutionCost: 7 });
    expect([a.substitutions, a.deletions, a.insertions]).toEqual([0, 1, 1]);
  });

  it("empty sides: all insertions or all deletions", () => {
    expect(alignTokens([], ["x", "y"]).steps.map((s) => s.kind)).toEqual(["I", "I"]);
    expect(alignTokens(["x", "y"], []).steps.map((s) => s.kind)).toEqual(["D", "D"]);
    expect(alignTokens([], []).steps).toEqual([]);
  });

  it("rejects weights that are not positive integers, naming the field", () => {
    expect(() => resolveAlignmentOptions({ substitutionCost: 0 })).toThrow(/substitutionCost must be an integer in \[1, 1000\]/);
    expect(() => resolveAlignmentOptions({ insertionCost: 2.5 })).toThrow(/insertionCost/);
    expect(() => resolveAlignmentOptions({ bogus: 1 } as Partial<AlignmentOptions>)).toThrow(/bogus is unknown/);
    expect(() => resolveErrorRateOptions({ normalizer: { numbersAsDigits: "yes" as unknown as boolean } })).toThrow(/numbersAsDigits must be a boolean/);
  });
});

describe("error rates", () => {
  it("WER is at least the length difference over the reference length, and 0 only for equal word lists", () => {
    const words = fc.array(fc.constantFrom("yes", "no", "maybe"), { maxLength: 8 });
    fc.assert(
      fc.property(words, words, (r, h) => {
        const e = wordErrorRate(r.join(" "), h.join(" "));
        if (r.length === 0) {
          expect(e.rate).toBeNull();
          expect(e.insertions).toBe(h.length);
          return;
        }
        expect(e.rate!).toBeGreaterThanOrEqual(Math.abs(r.length - h.length) / r.length - 1e-12);
        expect(e.rate === 0).toBe(r.join(" ") === h.join(" "));
      }),
      RUNS,
    );
  });

  it("a call's rate is its turns' summed counts over their summed reference lengths", () => {
    const turns = [
      ["book a table for two", "book the table for two"],
      ["tomorrow at seven", "tomorrow at seven please"],
      ["thanks", ""],
    ];
    const parts = turns.map(([r, h]) => wordErrorRate(r, h));
    const call = sumErrorCounts(parts);
    expect([call.substitutions, call.insertions, call.deletions, call.referenceLength]).toEqual([1, 1, 1, 9]);
    expect(call.rate).toBeCloseTo(3 / 9, 12);
  });

  it("compareTranscripts gives both rates, the normalised texts and the word alignment", () => {
    const c = compareTranscripts("It's twenty-one dollars.", "its $21");
    expect(c.reference).toBe("it is 21 dollars");
    expect(c.hypothesis).toBe("its 21 dollars");
    expect(c.words).toMatchObject({ correct: 2, substitutions: 1, deletions: 1, insertions: 0, referenceLength: 4 });
    expect(c.wer).toBeCloseTo(0.5, 12);
    // Characters: "itis21dollars" vs "its21dollars" differ by one deleted "i".
    expect(c.characters).toMatchObject({ deletions: 1, substitutions: 0, insertions: 0, referenceLength: 13 });
    // Two alignments cost 7 (S+D or D+S); the walk back from the end prefers the substitution next to the match.
    expect(c.alignment.map((s) => s.kind)).toEqual(["D", "S", "C", "C"]);
  });

  it("the example of docs/speech-models.md and the README holds", () => {
    const turn = compareTranscripts("I'd like twenty-one tickets.", "i would like 21 ticket");
    expect(turn.reference).toBe("i would like 21 tickets");
    expect(turn.words).toEqual({ correct: 4, substitutions: 1, deletions: 0, insertions: 0, referenceLength: 5, hypothesisLength: 5, rate: 0.2 });
    expect(turn.cer).toBeCloseTo(1 / 19, 15);
  });

  it("normalize: false compares whitespace-separated tokens as they are", () => {
    expect(wordErrorRate("Hello, world", "hello world", { normalize: false }).substitutions).toBe(1);
    expect(wordErrorRate("Hello, world", "hello world").rate).toBe(0);
  });
});
