// Transcript comparison: the English normaliser, sclite-compatible alignment, WER and CER (pure: no I/O, runs anywhere).
export * from "./align.js";
export * from "./error-rate.js";
export { normalizeText, normalizeWords, resolveTextNormalizerOptions, DEFAULT_TEXT_NORMALIZER_OPTIONS, type TextNormalizerOptions } from "./normalize.js";
export { numbersToDigits, ordinalSuffix } from "./numbers.js";
export { expandContraction } from "./contractions.js";
