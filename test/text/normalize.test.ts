// The English normaliser: each documented rule on examples, spellings that must compare equal, and idempotence.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandContraction, normalizeText, normalizeWords, numbersToDigits, ordinalSuffix, resolveTextNormalizerOptions } from "../../src/text/index.js";

describe("normalizeText: the documented rules", () => {
  it.each([
    // case, punctuation, whitespace
    ["Hello,   WORLD!\n\tHow are you?", "hello world how are you"],
    ["'Hello,' she said.", "hello she said"],
    ["well-known e-mail / fax", "well known e mail fax"],
    ["a.m. p.m. U.S.", "am pm us"],
    // diacritics and Unicode look-alikes
    ["Café déjà vu", "cafe deja vu"],
    ["it\u2019s ﬁne", "it is fine"],
    // contractions
    ["I don't know, it's fine", "i do not know it is fine"],
    ["won't can't cannot shan't ain't", "will not can not can not shall not is not"],
    ["we'll you're I'm they've she'd let's y'all", "we will you are i am they have she would let us you all"],
    ["we'll've", "we will have"],
    ["gonna wanna gotta", "going to want to got to"],
    ["John's car", "johns car"],
    // numbers
    ["twenty-one", "21"],
    ["one hundred and five", "105"],
    ["two thousand twenty four", "2024"],
    ["two million three hundred thousand and five", "2300005"],
    ["a hundred", "100"],
    ["a thousand and one nights", "1001 nights"],
    ["nineteen hundred", "1900"],
    ["nineteen eighty-four", "1984"],
    ["one two three", "123"],
    ["call 555-1234", "call 5551234"],
    ["1,000,000 or one million", "1000000 or 1000000"],
    ["5 million people, 3 hundred", "5000000 people 300"],
    ["3.5 million", "3.5 million"],
    ["three point one four", "3.14"],
    ["zero point five", "0.5"],
    ["the twenty first and the 21st", "the 21st and the 21st"],
    ["first second third eleventh twelfth one hundredth", "1st 2nd 3rd 11th 12th 100th"],
    ["It's 10:30 a.m.", "it is 1030 am"],
    ["4pm", "4 pm"],
    ["twenty, twenty five", "2025"],
    ["I have 2, 3 or 4", "i have 23 or 4"],
    ["millions of people", "millions of people"],
    // symbols
    ["$5 and $1", "5 dollars and 1 dollar"],
    ["€2,500.50", "2500.50 euros"],
    ["50% & more", "50 percent and more"],
    ["", ""],
    ["?!...", ""],
  ])("%j → %j", (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it.each([
    ["twenty-one", "21", "twenty one", "Twenty One."],
    ["$5", "five dollars", "5 dollars"],
    ["I don't know", "i do not know", "I DON'T KNOW!"],
    ["1984", "nineteen eighty four", "nineteen eighty-four"],
    ["ten thirty", "10:30", "10 30"],
    ["555 1234", "five five five one two three four", "555-1234"],
    ["the 1st", "the first"],
    ["fifty percent", "50%"],
  ])("spellings that compare equal: %j", (...spellings: string[]) => {
    const forms = new Set(spellings.map((s) => normalizeText(s)));
    expect([...forms]).toHaveLength(1);
  });

  it("each rule can be switched off", () => {
    expect(normalizeText("Twenty-one café, don't", { numbersAsDigits: false, foldDiacritics: false, expandContractions: false })).toBe("twenty one café dont");
    expect(() => resolveTextNormalizerOptions({ lowercase: false } as never)).toThrow(/lowercase is unknown/);
  });

  it("punctuation never changes the words: a transcript without it normalises the same", () => {
    const text = "Yes, twenty. Twenty-five? I'd say: one hundred; and 3.5 (or 4) — fine!";
    expect(normalizeText(text)).toBe(normalizeText(text.replace(/[,?:;()—!]|\.(?!\d)/g, " ")));
    expect(normalizeText(text)).toBe("yes 2025 i would say 100 and 3.5 or 4 fine");
  });

  it("is idempotent and yields only non-empty lower-case words without punctuation", () => {
    const piece = fc.constantFrom(
      "Hello", "don't", "it's", "twenty-one", "21", "$5", "10:30", "3.5", "a.m.", "one", "hundred", "and", "five", "first", "a", "thousand",
      "point", "zero", "Café", "50%", ",", ".", "?", "—", "-", "'", "&", "nineteen", "eighty", "four", "million", "4pm", "John's",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.array(fc.constantFrom(" ", "", "  ", "\n"), { minLength: 14, maxLength: 14 }), (pieces, gaps) => {
        const text = pieces.map((p, i) => p + gaps[i]).join("");
        const once = normalizeText(text);
        expect(normalizeText(once)).toBe(once);
        for (const w of normalizeWords(text)) {
          expect(w).toMatch(/^[\p{Ll}\p{N}]+(?:\.\p{N}+)?[\p{Ll}]*$/u);
        }
      }),
      { numRuns: 500, seed: 99 },
    );
  });
});

describe("number and contraction helpers", () => {
  it("ordinal suffixes", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map((n) => n + ordinalSuffix(n))).toEqual([
      "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th",
    ]);
  });

  it("numbersToDigits leaves other words alone and never joins across a non-number", () => {
    expect(numbersToDigits(["room", "twenty", "one", "and", "two"])).toEqual(["room", "21", "and", "2"]);
    expect(numbersToDigits(["one", "hundred", "and"])).toEqual(["100", "and"]);
  });

  it("expandContraction knows the whole-word and suffix forms and leaves possessives", () => {
    expect(expandContraction("isn't")).toBe("is not");
    expect(expandContraction("what's")).toBe("what is");
    expect(expandContraction("mary's")).toBe("mary's");
    expect(expandContraction("hello")).toBe("hello");
  });
});
