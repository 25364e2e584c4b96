// English contractions expanded to their full words (the normaliser's contraction rule), so "don't" and "do not" compare equal.
//
// Ambiguous endings take one fixed reading on both sides of a comparison, which is all WER needs:
// 'd → would (also "had"), 's after a pronoun or question word → is (also "has"), ain't → is not.
// Any other 's is a possessive and loses its apostrophe ("john's" → johns), like every apostrophe
// left after this step.

/** Whole words that do not follow the suffix rules. */
const WHOLE_WORDS: Record<string, string> = {
  "won't": "will not",
  "can't": "can not",
  cannot: "can not",
  "shan't": "shall not",
  "ain't": "is not",
  "let's": "let us",
  "y'all": "you all",
  "'cause": "because",
  "ma'am": "madam",
  gonna: "going to",
  wanna: "want to",
  gotta: "got to",
};

/** Words whose 's means "is" (otherwise 's is a possessive). */
const IS_AFTER = new Set(["it", "that", "what", "where", "who", "there", "here", "how", "he", "she", "when", "why", "this", "everyone", "everything", "nothing", "something", "someone"]);

const SUFFIXES: readonly (readonly [string, string])[] = [
  ["n't", " not"],
  ["'re", " are"],
  ["'ve", " have"],
  ["'ll", " will"],
  ["'m", " am"],
  ["'d", " would"],
];

/**
 * The expansion of one lower-case word that uses a straight apostrophe, or the word itself when it is
 * no contraction. The result may hold several words separated by spaces.
 */
export function expandContraction(word: string): string {
  if (Object.hasOwn(WHOLE_WORDS, word)) return WHOLE_WORDS[word];
  for (const [suffix, expansion] of SUFFIXES) {
    // The stem may be contracted too ("we'll've").
    if (word.length > suffix.length && word.endsWith(suffix)) return expandContraction(word.slice(0, -suffix.length)) + expansion;
  }
  if (word.endsWith("'s")) {
    const stem = word.slice(0, -2);
    if (IS_AFTER.has(stem)) return `${stem} is`;
  }
  return word;
}
