// The peeling order of clip location (formats.md F2.4), shared by the kernel wrapper (locate.ts) and its readable twin (reference/locate.ts).

/** The matching operations peeling needs; implementations differ only in where the residual lives. */
export interface ClipPeeler {
  /** Every offset (ascending) where all samples of clip `i` match the residual. */
  fullMatches(i: number): number[];
  /** The offset where a large, distinctive part of clip `i` matches and no other offset comes close, else null. */
  partialMatch(i: number): number | null;
  /** Whether clips `i` and `j` hold the same samples. */
  sameSamples(i: number, j: number): boolean;
  /** Subtract clip `i` placed at `offset` from the residual. */
  place(i: number, offset: number): void;
}

/** The clips still to place: a Set, or a view of one that iterates only those worth trying (in the set's order). */
export interface PendingClips extends Iterable<number> {
  has(i: number): boolean;
  delete(i: number): boolean;
}

/**
 * Place the `pending` clips one by one, writing each offset to `offsets` and removing it from
 * `pending`: every clip that matches the residual exactly is placed (identical clips matching at
 * exactly as many offsets as there are of them take those offsets in turn order); when none does,
 * the first clip with a unique partial match and no pending twin is placed and exact matching starts
 * again. Stops when no pending clip can be placed.
 */
export function peelClips(pending: PendingClips, offsets: Array<number | null>, peeler: ClipPeeler): void {
  const twinsOf = (i: number) => [...pending].filter((j) => peeler.sameSamples(i, j));
  const place = (i: number, o: number) => {
    peeler.place(i, o);
    offsets[i] = o;
    pending.delete(i);
  };
  for (;;) {
    let progress = false;
    // The set itself, not a copy (a copy per round is garbage a long render makes by the megabyte):
    // iteration skips the clips placed meanwhile, and nothing is added while peeling.
    for (const i of pending) {
      const hits = peeler.fullMatches(i);
      if (hits.length === 0) continue;
      // Twins (clips of the same samples) are placed together, in turn order, once each has its offset: one
      // offset seen for a clip with a pending twin could be either twin's.
      const twins = twinsOf(i);
      if (twins.length !== hits.length) continue;
      twins.forEach((j, k) => place(j, hits[k]));
      progress = true;
    }
    if (progress) continue;
    for (const i of pending) {
      const o = peeler.partialMatch(i);
      // A clip with a pending twin is not placed on part of it: which of the twins is there cannot be
      // told from the samples (the exact rule above places twins in turn order once all are seen).
      if (o !== null && twinsOf(i).length === 1) {
        place(i, o);
        progress = true;
        break;
      }
    }
    if (!progress) return;
  }
}
