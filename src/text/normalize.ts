// The documented English normaliser applied to both sides before WER / CER (docs/speech-models.md lists its rules).
import { expandContraction } from "./contractions.js";
import { numbersToDigits } from "./numbers.js";

/** Which optional rules the normaliser applies; lower-casing and punctuation removal always apply. */
export interface TextNormalizerOptions {
  /**
   * Strip accents and other combining marks ("café" → "cafe").
   * @defaultValue true
   */
  foldDiacritics: boolean;
  /**
   * Expand contractions ("don't" → "do not", "we'll" → "we will"; see contractions.ts for the fixed readings).
   * @defaultValue true
   */
  expandContractions: boolean;
  /**
   * Write numbers in digits and join adjacent whole numbers ("twenty-one" → 21; see numbers.ts).
   * @defaultValue true
   */
  numbersAsDigits: boolean;
}

/** Defaults of the English transcript normaliser. */
export const DEFAULT_TEXT_NORMALIZER_OPTIONS: Readonly<TextNormalizerOptions> = Object.freeze({
  foldDiacritics: true,
  expandContractions: true,
  numbersAsDigits: true,
});

/** Defaults overlaid with `partial`; throws a RangeError naming an unknown or non-boolean option. */
export function resolveTextNormalizerOptions(partial: Partial<TextNormalizerOptions> = {}): TextNormalizerOptions {
  const o: TextNormalizerOptions = { ...DEFAULT_TEXT_NORMALIZER_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof TextNormalizerOptions, unknown][]) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_TEXT_NORMALIZER_OPTIONS, key)) throw new RangeError(`text normalizer option ${key} is unknown`);
    if (typeof value !== "boolean") throw new RangeError(`text normalizer option ${key} must be a boolean, got ${String(value)}`);
    o[key] = value;
  }
  return o;
}

const CURRENCY: Record<string, [string, string]> = { $: ["dollar", "dollars"], "€": ["euro", "euros"], "£": ["pound", "pounds"] };
const ORDINAL_SUFFIX = /^(?:st|nd|rd|th)$/;

/**
 * Everything that is not part of a word separates words: punctuation, hyphens, slashes, symbols, and a
 * period unless it sits between two digits (a decimal point). Punctuation carries no other meaning,
 * so a transcript with punctuation and one without normalise to the same words.
 */
const SEPARATOR = /(?<!\d)\.|\.(?!\d)|[^\p{L}\p{N}'.]+/gu;

/** Unicode apostrophe look-alikes, read as the ASCII apostrophe. */
const APOSTROPHES = /[\u2018\u2019\u02bc\u2032\u00b4`]/g;

/**
 * The words of `text` after normalisation: NFKC, lower case, diacritics folded, symbols spelled
 * ($5 → 5 dollars, 50% → 50 percent, & → and), contractions expanded, punctuation removed, numbers as
 * digits. Whitespace of any kind separates words; the result never holds an empty word.
 */
export function normalizeWords(text: string, options: Partial<TextNormalizerOptions> = {}): string[] {
  const o = resolveTextNormalizerOptions(options);
  let s = text.normalize("NFKC").replace(APOSTROPHES, "'");
  if (o.foldDiacritics) s = s.normalize("NFD").replace(/\p{M}+/gu, "").normalize("NFC");
  s = s
    .toLowerCase()
    .replace(/([$€£])\s?(\d+(?:,\d{3})*(?:\.\d+)?)/g, (_, sign: string, amount: string) => ` ${amount} ${CURRENCY[sign][amount === "1" ? 0 : 1]} `)
    .replace(/%/g, " percent ")
    .replace(/&/g, " and ")
    // 1,000,000 is one number; 10:30 reads as ten thirty, which the number rule joins into 1030.
    .replace(/(?<=\d),(?=\d{3}(?!\d))/g, "")
    .replace(/(?<=\d):(?=\d)/g, "")
    // Abbreviations lose their dots: a.m. → am, u.s. → us.
    .replace(/(?<=\p{L})\.(?=\p{L})/gu, "");

  const words: string[] = [];
  for (const raw of s.replace(SEPARATOR, " ").split(" ")) {
    if (!raw) continue;
    for (const word of expandWord(raw, o)) {
      const digitsThenLetters = /^(\d+)(\p{L}+)$/u.exec(word);
      if (digitsThenLetters && !ORDINAL_SUFFIX.test(digitsThenLetters[2])) words.push(digitsThenLetters[1], digitsThenLetters[2]);
      else words.push(word);
    }
  }
  return o.numbersAsDigits ? numbersToDigits(words) : words;
}

/** One word with its contraction expanded and every apostrophe (quote, possessive) removed. */
function expandWord(raw: string, o: TextNormalizerOptions): string[] {
  let text = raw;
  if (o.expandContractions) {
    const whole = expandContraction(raw);
    text = whole !== raw ? whole : expandContraction(raw.replace(/^'+|'+$/g, ""));
  }
  return text
    .replace(/'/g, "")
    .split(" ")
    .filter((w) => w !== "");
}

/** The normalised words joined with single spaces. */
export function normalizeText(text: string, options: Partial<TextNormalizerOptions> = {}): string {
  return normalizeWords(text, options).join(" ");
}
