// Minimum-cost alignment of a reference and a hypothesis token sequence, with NIST sclite's default weights and tie-breaking.
//
// Cost of an alignment = insertionCost·I + deletionCost·D + substitutionCost·S (a match costs 0);
// sclite's defaults are 3, 3 and 4, so one substitution is preferred to a deletion plus an insertion.
// Among alignments of equal cost, the one chosen is the one sclite reports: fill the cost table from
// the start of both sequences, then walk back from their ends preferring, at each step, a match or
// substitution, then an insertion, then a deletion. The test against sclite checks both the counts
// and the alignment itself on generated pairs full of ties.

/** Weights of the edit operations (dimensionless cost units). */
export interface AlignmentOptions {
  /**
   * Cost of a hypothesis token with no reference token.
   * @defaultValue 3
   */
  insertionCost: number;
  /**
   * Cost of a reference token with no hypothesis token.
   * @defaultValue 3
   */
  deletionCost: number;
  /**
   * Cost of a reference token replaced by a different hypothesis token.
   * @defaultValue 4
   */
  substitutionCost: number;
}

export const DEFAULT_ALIGNMENT_OPTIONS: Readonly<AlignmentOptions> = Object.freeze({ insertionCost: 3, deletionCost: 3, substitutionCost: 4 });

/** Largest cost table (reference length + 1) × (hypothesis length + 1) one alignment may need (one byte per cell). */
export const MAX_ALIGNMENT_CELLS = 2 ** 28;

/** Defaults overlaid with `partial`; throws a RangeError naming the field and its allowed range. */
export function resolveAlignmentOptions(partial: Partial<AlignmentOptions> = {}): AlignmentOptions {
  const o: AlignmentOptions = { ...DEFAULT_ALIGNMENT_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof AlignmentOptions, unknown][]) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_ALIGNMENT_OPTIONS, key)) throw new RangeError(`alignment option ${key} is unknown`);
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 1000) {
      throw new RangeError(`alignment option ${key} must be an integer in [1, 1000], got ${String(value)}`);
    }
    o[key] = value;
  }
  return o;
}

/** C = correct (match), S = substitution, D = deletion (reference token missed), I = insertion (extra hypothesis token). */
export type EditKind = "C" | "S" | "D" | "I";

/** One step of an alignment: the reference token (null for an insertion) against the hypothesis token (null for a deletion). */
export interface AlignmentStep {
  kind: EditKind;
  ref: string | null;
  hyp: string | null;
}

/** Counts of one alignment, or summed over several. */
export interface EditCounts {
  correct: number;
  substitutions: number;
  deletions: number;
  insertions: number;
}

/** A word or character alignment: the aligned pairs and their edit counts. */
export interface Alignment extends EditCounts {
  steps: AlignmentStep[];
}

const MATCH = 0;
const INSERT = 1;
const DELETE = 2;

/** Align `hyp` to `ref` (tokens compared with ===); see the top of this file for cost and tie-breaking. */
export function alignTokens(ref: readonly string[], hyp: readonly string[], options: Partial<AlignmentOptions> = {}): Alignment {
  const { insertionCost, deletionCost, substitutionCost } = resolveAlignmentOptions(options);
  const n = ref.length;
  const m = hyp.length;
  const width = m + 1;
  if ((n + 1) * width > MAX_ALIGNMENT_CELLS) {
    throw new RangeError(`cannot align ${n} reference tokens with ${m} hypothesis tokens: more than ${MAX_ALIGNMENT_CELLS} cells; align shorter pieces (turns) and sum their counts`);
  }
  // Two rows of costs and one byte per cell for the step that reached it.
  const from = new Uint8Array((n + 1) * width);
  let prev = new Float64Array(width);
  let cur = new Float64Array(width);
  for (let j = 1; j <= m; j++) {
    prev[j] = j * insertionCost;
    from[j] = INSERT;
  }
  for (let i = 1; i <= n; i++) {
    cur[0] = i * deletionCost;
    from[i * width] = DELETE;
    const r = ref[i - 1];
    for (let j = 1; j <= m; j++) {
      // Preference on equal cost: match/substitution, then insertion, then deletion.
      let best = prev[j - 1] + (r === hyp[j - 1] ? 0 : substitutionCost);
      let step = MATCH;
      const ins = cur[j - 1] + insertionCost;
      if (ins < best) {
        best = ins;
        step = INSERT;
      }
      const del = prev[j] + deletionCost;
      if (del < best) {
        best = del;
        step = DELETE;
      }
      cur[j] = best;
      from[i * width + j] = step;
    }
    [prev, cur] = [cur, prev];
  }

  const steps: AlignmentStep[] = [];
  const counts: EditCounts = { correct: 0, substitutions: 0, deletions: 0, insertions: 0 };
  for (let i = n, j = m; i > 0 || j > 0; ) {
    const step = from[i * width + j];
    if (step === MATCH) {
      const same = ref[i - 1] === hyp[j - 1];
      steps.push({ kind: same ? "C" : "S", ref: ref[i - 1], hyp: hyp[j - 1] });
      if (same) counts.correct++;
      else counts.substitutions++;
      i--;
      j--;
    } else if (step === INSERT) {
      steps.push({ kind: "I", ref: null, hyp: hyp[j - 1] });
      counts.insertions++;
      j--;
    } else {
      steps.push({ kind: "D", ref: ref[i - 1], hyp: null });
      counts.deletions++;
      i--;
    }
  }
  steps.reverse();
  return { ...counts, steps };
}
