// Word and character error rates (WER, CER) of a hypothesis transcript against a reference, counted the way NIST sclite counts them.
//
// WER = (S + D + I) / N over the normalised words, N = reference words = C + S + D, from the
// alignment of align.ts. CER is the same over characters: the normalised words split into Unicode
// code points, spaces left out (as `sclite -c` does). A rate is null when the reference is empty
// (nothing to divide by); the counts still say how many words were inserted. A whole call's rate is
// the sum of its turns' counts divided by the sum of their reference lengths (sumErrorCounts), not a
// mean of per-turn rates.
import { alignTokens, resolveAlignmentOptions, type AlignmentOptions, type AlignmentStep, type EditCounts } from "./align.js";
import { normalizeWords, resolveTextNormalizerOptions, type TextNormalizerOptions } from "./normalize.js";

/** Options of the error rates: normaliser options, characters or words. */
export interface ErrorRateOptions extends AlignmentOptions {
  /**
   * Normalise both texts (normalize.ts) before aligning; false splits them on whitespace only.
   * @defaultValue true
   */
  normalize: boolean;
  /**
   * Rules of the normaliser when `normalize` is on.
   * @defaultValue DEFAULT_TEXT_NORMALIZER_OPTIONS
   */
  normalizer: Partial<TextNormalizerOptions>;
}

export const DEFAULT_ERROR_RATE_OPTIONS: Readonly<ErrorRateOptions> = Object.freeze({
  ...resolveAlignmentOptions(),
  normalize: true,
  normalizer: Object.freeze({}),
});

/** Defaults overlaid with `partial`; throws a RangeError naming a bad field. */
export function resolveErrorRateOptions(partial: Partial<ErrorRateOptions> = {}): ErrorRateOptions {
  const { normalize, normalizer, ...alignment } = partial;
  if (normalize !== undefined && typeof normalize !== "boolean") throw new RangeError(`error rate option normalize must be a boolean, got ${String(normalize)}`);
  return {
    ...resolveAlignmentOptions(alignment),
    normalize: normalize ?? DEFAULT_ERROR_RATE_OPTIONS.normalize,
    normalizer: resolveTextNormalizerOptions(normalizer),
  };
}

/** Edit counts with the lengths they relate to and the resulting rate. */
export interface ErrorRate extends EditCounts {
  /** Reference tokens N = correct + substitutions + deletions. */
  referenceLength: number;
  /** Hypothesis tokens = correct + substitutions + insertions. */
  hypothesisLength: number;
  /** (substitutions + deletions + insertions) / referenceLength; null when the reference is empty. */
  rate: number | null;
}

/** What comparing one reference with one hypothesis gives. */
export interface TranscriptComparison {
  /** The reference after normalisation (words joined by single spaces). */
  reference: string;
  /** The hypothesis after normalisation. */
  hypothesis: string;
  /** Word error rate, null when the reference has no words. */
  wer: number | null;
  /** Character error rate, null when the reference has no characters. */
  cer: number | null;
  words: ErrorRate;
  characters: ErrorRate;
  /** The word alignment (reference order). */
  alignment: AlignmentStep[];
}

/** The rate of summed counts: several turns, several calls. */
export function sumErrorCounts(parts: readonly EditCounts[]): ErrorRate {
  const total: EditCounts = { correct: 0, substitutions: 0, deletions: 0, insertions: 0 };
  for (const p of parts) {
    total.correct += p.correct;
    total.substitutions += p.substitutions;
    total.deletions += p.deletions;
    total.insertions += p.insertions;
  }
  return withRate(total);
}

function withRate({ correct, substitutions, deletions, insertions }: EditCounts): ErrorRate {
  const referenceLength = correct + substitutions + deletions;
  return {
    correct,
    substitutions,
    deletions,
    insertions,
    referenceLength,
    hypothesisLength: correct + substitutions + insertions,
    rate: referenceLength === 0 ? null : (substitutions + deletions + insertions) / referenceLength,
  };
}

function alignmentOf({ insertionCost, deletionCost, substitutionCost }: ErrorRateOptions): AlignmentOptions {
  return { insertionCost, deletionCost, substitutionCost };
}

function wordsOf(text: string, o: ErrorRateOptions): string[] {
  return o.normalize ? normalizeWords(text, o.normalizer) : text.split(/\s+/u).filter((w) => w !== "");
}

function charactersOf(words: readonly string[]): string[] {
  return Array.from(words.join(""));
}

/** Word and character error rates of `hypothesis` against `reference`, with the word alignment. */
export function compareTranscripts(reference: string, hypothesis: string, options: Partial<ErrorRateOptions> = {}): TranscriptComparison {
  const o = resolveErrorRateOptions(options);
  const refWords = wordsOf(reference, o);
  const hypWords = wordsOf(hypothesis, o);
  const wordAlignment = alignTokens(refWords, hypWords, alignmentOf(o));
  const words = withRate(wordAlignment);
  const characters = withRate(alignTokens(charactersOf(refWords), charactersOf(hypWords), alignmentOf(o)));
  return { reference: refWords.join(" "), hypothesis: hypWords.join(" "), wer: words.rate, cer: characters.rate, words, characters, alignment: wordAlignment.steps };
}

/** Word error rate alone (counts and rate); see compareTranscripts for both rates and the alignment. */
export function wordErrorRate(reference: string, hypothesis: string, options: Partial<ErrorRateOptions> = {}): ErrorRate {
  const o = resolveErrorRateOptions(options);
  return withRate(alignTokens(wordsOf(reference, o), wordsOf(hypothesis, o), alignmentOf(o)));
}

/** Character error rate alone (counts and rate), over the normalised words without spaces. */
export function characterErrorRate(reference: string, hypothesis: string, options: Partial<ErrorRateOptions> = {}): ErrorRate {
  const o = resolveErrorRateOptions(options);
  return withRate(alignTokens(charactersOf(wordsOf(reference, o)), charactersOf(wordsOf(hypothesis, o)), alignmentOf(o)));
}
