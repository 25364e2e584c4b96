// English numbers written in words rewritten as digits, so "twenty-one", "21" and "twenty one" compare equal (the normaliser's number rule).
//
// The rules, applied to the words after punctuation is gone (normalize.ts), so they never depend on it:
// 1. A cardinal phrase becomes its value in digits: units, teens, tens (+ unit), "hundred" after a
//    unit or teen ("nineteen hundred"), and the scales thousand < million < billion < trillion in
//    decreasing order ("two million three hundred thousand and five" → 2300005). "and" is part of the
//    phrase only after "hundred" or a scale and before a number word; "a hundred" / "a thousand" count
//    as one hundred / one thousand; a digit group written in digits may take a scale ("5 million").
//    A phrase starts with a unit, teen, tens, "a" or digits: a bare "million" stays a word. "zero"
//    stands alone. A unit never follows a unit or a teen, so "one two three" is three phrases.
// 2. An ordinal ends its phrase and takes the English suffix: "twenty first" → 21st, "one hundredth" → 100th.
// 3. A cardinal phrase followed by "point" and single digit words is a decimal: "three point one four" → 3.14.
// 4. Adjacent whole numbers join into one token: "nineteen eighty four" → 19 84 → 1984, "one two
//    three" → 123 and "20 25" → 2025. Digit strings and spoken digits then agree however the number
//    was grouped when read out; the price is that a run of numbers counts as one word.

const UNITS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 };
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

const ORDINAL_UNITS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9,
};
const ORDINAL_TEENS: Record<string, number> = {
  tenth: 10, eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17, eighteenth: 18, nineteenth: 19,
};
const ORDINAL_TENS: Record<string, number> = {
  twentieth: 20, thirtieth: 30, fortieth: 40, fiftieth: 50, sixtieth: 60, seventieth: 70, eightieth: 80, ninetieth: 90,
};
const ORDINAL_SCALES: Record<string, number> = { thousandth: 1e3, millionth: 1e6, billionth: 1e9, trillionth: 1e12 };

const DIGIT_WORDS: Record<string, string> = { zero: "0", ...Object.fromEntries(Object.entries(UNITS).map(([w, v]) => [w, String(v)])) };

type Kind = "start" | "unit" | "teen" | "tens" | "hundred" | "scale";

/** What one word can be inside a cardinal phrase. */
interface NumberWord {
  kind: "unit" | "teen" | "tens" | "hundred" | "scale";
  value: number;
  ordinal: boolean;
}

function numberWord(word: string): NumberWord | null {
  const lookup = (table: Record<string, number>, kind: NumberWord["kind"], ordinal: boolean): NumberWord | null =>
    Object.hasOwn(table, word) ? { kind, value: table[word], ordinal } : null;
  return (
    lookup(UNITS, "unit", false) ??
    lookup(TEENS, "teen", false) ??
    lookup(TENS, "tens", false) ??
    lookup(SCALES, "scale", false) ??
    (word === "hundred" ? { kind: "hundred", value: 100, ordinal: false } : null) ??
    lookup(ORDINAL_UNITS, "unit", true) ??
    lookup(ORDINAL_TEENS, "teen", true) ??
    lookup(ORDINAL_TENS, "tens", true) ??
    lookup(ORDINAL_SCALES, "scale", true) ??
    (word === "hundredth" ? { kind: "hundred", value: 100, ordinal: true } : null)
  );
}

const WHOLE_NUMBER = /^\d+$/;

/** Which kinds may come after which inside one phrase. */
const FOLLOWS: Record<NumberWord["kind"], readonly Kind[]> = {
  unit: ["start", "tens", "hundred", "scale"],
  teen: ["start", "hundred", "scale"],
  tens: ["start", "hundred", "scale"],
  hundred: ["start", "unit", "teen"],
  scale: ["start", "unit", "teen", "tens", "hundred"],
};

/** The English ordinal suffix of a whole number: 1st, 2nd, 3rd, 11th–13th, 21st… */
export function ordinalSuffix(n: number): string {
  const lastTwo = n % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
}

interface Phrase {
  /** The phrase in digits ("21", "21st", "3.14"). */
  text: string;
  /** Index of the first word after the phrase. */
  end: number;
  /** A whole cardinal (may join its neighbours, rule 4). */
  whole: boolean;
}

/** Where a phrase starts: its first words already read into a group value, or null when no phrase starts at `start`. */
function openPhrase(words: readonly string[], start: number): { group: number; last: Kind; next: number } | null {
  const word = words[start];
  const following = start + 1 < words.length ? numberWord(words[start + 1]) : null;
  // "a hundred", "a thousand": the article stands for one.
  if (word === "a") return following && (following.kind === "hundred" || following.kind === "scale") && !following.ordinal ? { group: 1, last: "unit", next: start + 1 } : null;
  if (WHOLE_NUMBER.test(word)) {
    // A digit group before a scale word ("5 million", "25 thousand", "3 hundred"); other digits are no phrase.
    const value = Number(word);
    const takesScale = following !== null && !following.ordinal && value > 0 && (following.kind === "scale" ? value < 1000 : following.kind === "hundred" && value < 20);
    if (!takesScale) return null;
    return { group: value, last: value < 10 ? "unit" : value < 20 ? "teen" : value < 100 ? "tens" : "hundred", next: start + 1 };
  }
  // A scale or "hundred" needs a number before it: "millions of", "3.5 million" keep the word.
  const first = numberWord(word);
  return first && (first.kind === "unit" || first.kind === "teen" || first.kind === "tens") ? { group: 0, last: "start", next: start } : null;
}

/** The cardinal, ordinal or decimal phrase starting at `start`, or null when the word there starts none. */
function readPhrase(words: readonly string[], start: number): Phrase | null {
  if (words[start] === "zero") return readDecimal(words, start + 1, 0);
  const opened = openPhrase(words, start);
  if (!opened) return null;
  let { group, last, next: i } = opened;
  let total = 0;
  let lastScale = Infinity;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word === "and" && (last === "hundred" || last === "scale")) {
      const after = i + 1 < words.length ? numberWord(words[i + 1]) : null;
      if (after && (after.kind === "unit" || after.kind === "teen" || after.kind === "tens")) continue;
      break;
    }
    const w = numberWord(word);
    if (!w || !FOLLOWS[w.kind].includes(last)) break;
    if (w.kind === "hundred" && group >= 100) break;
    if (w.kind === "scale" && w.value >= lastScale) break;
    if (w.kind === "hundred") {
      group = (group === 0 ? 1 : group) * 100;
    } else if (w.kind === "scale") {
      total += (group === 0 ? 1 : group) * w.value;
      group = 0;
      lastScale = w.value;
    } else {
      group += w.value;
    }
    last = w.kind;
    if (w.ordinal) {
      const value = total + group;
      return { text: `${value}${ordinalSuffix(value)}`, end: i + 1, whole: false };
    }
  }
  return readDecimal(words, i, total + group);
}

/** Rule 3 after a cardinal `value` ending before `at`: "point" and spoken digits, else the whole number. */
function readDecimal(words: readonly string[], at: number, value: number): Phrase {
  let fraction = "";
  let j = at + 1;
  if (words[at] === "point") for (; j < words.length && Object.hasOwn(DIGIT_WORDS, words[j]); j++) fraction += DIGIT_WORDS[words[j]];
  return fraction ? { text: `${value}.${fraction}`, end: j, whole: false } : { text: String(value), end: at, whole: true };
}

/**
 * Rewrite the number words of lower-case words (no punctuation) as digits and join adjacent whole
 * numbers, following the rules at the top of this file. Other words pass unchanged.
 */
export function numbersToDigits(words: readonly string[]): string[] {
  const out: string[] = [];
  let previousWhole = false;
  for (let i = 0; i < words.length; ) {
    const phrase = readPhrase(words, i);
    const text = phrase ? phrase.text : words[i];
    const whole = phrase ? phrase.whole : WHOLE_NUMBER.test(words[i]);
    if (whole && previousWhole) out[out.length - 1] += text;
    else out.push(text);
    previousWhole = whole;
    i = phrase ? phrase.end : i + 1;
  }
  return out;
}
