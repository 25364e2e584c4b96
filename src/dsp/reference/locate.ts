// Readable twin of the clip-location kernels (assembly/kernels/locate.ts): exact placement of deepeval simulation clips inside the combined render (formats.md F2.4).
//
// This is the plain-TypeScript algorithm the kernels reproduce sample for sample; the property test
// (test/dsp/locate.test.ts) checks that both give the same offsets on random and edge-case renders.
// Both run the same peeling order (../peel.ts); they differ in the matching and subtraction.
import { peelClips } from "../peel.js";

/** Anchor window length in samples: long enough that a chance match in speech is practically impossible. */
const ANCHOR_SAMPLES = 24;
/** A sample counts as distinctive (usable in an anchor) from this magnitude on. */
const DISTINCT_LEVEL = 64;
/** Anchors tried per clip when only part of it can match (the rest overlaps another clip). */
const PARTIAL_ANCHORS = 16;
/** Candidate offsets examined per anchor. */
const CANDIDATES_PER_ANCHOR = 8;
/** A partial placement needs this share of the clip's samples to match exactly… */
const PARTIAL_MIN_SHARE = 0.2;
/** …including at least this many distinctive samples. */
const PARTIAL_MIN_DISTINCT = 2000;

/**
 * Locate clips inside deepeval's combined render, which is a clamped int32 sum of the clips at their
 * offsets (F2.4). Clips that match the residual exactly are placed and subtracted ("peeled") one by
 * one; a clip overlapped by another is placed on its non-overlapped part when that part matches
 * exactly at one offset, which usually frees its partner for an exact match. Saturated mix samples
 * match anything (the clamp destroyed them). Identical clips (the same audio in k turn files) that
 * match at exactly k offsets are placed in turn order, since turn numbers grow with time. Returns
 * sample offsets, null where no exact, unique placement exists (null clips are skipped).
 */
export function locateClipsInMixReference(mix: Int16Array, clips: Array<Int16Array | null>): Array<number | null> {
  const wild = saturatedSamplesReference(mix);
  const offsets: Array<number | null> = clips.map(() => null);
  const pending = new Set(clips.flatMap((c, i) => (c && c.length > 0 && c.length <= mix.length ? [i] : [])));
  const index = new ResidualIndexReference(mix, [...pending].map((i) => (clips[i] as Int16Array).length));
  const residual = index.residual;
  // Anchors depend on the clip only; each list is computed once, not once per peeling round.
  const fullAnchor = new Map<number, number[]>();
  const partialAnchors = new Map<number, number[]>();
  const anchorsOf = (cache: Map<number, number[]>, i: number, count: number) => {
    let a = cache.get(i);
    if (!a) cache.set(i, (a = anchorPositionsReference(clips[i] as Int16Array, count)));
    return a;
  };
  peelClips(pending, offsets, {
    fullMatches: (i) => findFullMatchesReference(index, wild, clips[i] as Int16Array, anchorsOf(fullAnchor, i, 1)),
    partialMatch: (i) => findPartialMatchReference(index, wild, clips[i] as Int16Array, anchorsOf(partialAnchors, i, PARTIAL_ANCHORS)),
    sameSamples: (i, j) => sameSamples(clips[i] as Int16Array, clips[j] as Int16Array),
    place: (i, o) => {
      const clip = clips[i] as Int16Array;
      subtractClipReference(residual, wild, clip, o);
      index.update(o, clip.length);
    },
  });
  return offsets;
}

/** 1 where the render clipped (the sum there is lost), else 0. */
export function saturatedSamplesReference(mix: Int16Array): Uint8Array {
  const wild = new Uint8Array(mix.length);
  for (let i = 0; i < mix.length; i++) if (mix[i] === 32767 || mix[i] === -32768) wild[i] = 1;
  return wild;
}

/** Peel a placed clip off the residual; saturated samples stay wild. */
export function subtractClipReference(residual: Int32Array, wild: Uint8Array, clip: Int16Array, o: number): void {
  for (let k = 0; k < clip.length; k++) if (wild[o + k] === 0) residual[o + k] -= clip[k];
}

function sameSamples(a: Int16Array, b: Int16Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Start positions of distinctive anchor windows in a clip, at most `count`, spread over its length. */
export function anchorPositionsReference(clip: Int16Array, count: number): number[] {
  const out: number[] = [];
  const last = clip.length - ANCHOR_SAMPLES;
  if (last < 0) return out;
  const step = Math.max(1, Math.floor(last / count));
  for (let start = 0; start <= last && out.length < count; start += step) {
    for (let p = start; p <= Math.min(last, start + step - 1); p++) {
      if (isDistinctWindow(clip, p)) {
        out.push(p);
        break;
      }
    }
  }
  return out;
}

function isDistinctWindow(clip: Int16Array, p: number): boolean {
  let loud = 0;
  for (let k = 0; k < ANCHOR_SAMPLES; k++) {
    const x = clip[p + k];
    if (x >= DISTINCT_LEVEL || x <= -DISTINCT_LEVEL) loud++;
  }
  return loud * 2 >= ANCHOR_SAMPLES;
}

/**
 * Every anchor occurrence contains exactly one indexed window: windows start every KEY_STRIDE
 * samples and are KEY_SAMPLES long, so an anchor starting anywhere holds the next one whole.
 */
const KEY_STRIDE = 8;
const KEY_SAMPLES = ANCHOR_SAMPLES - KEY_STRIDE + 1;
/**
 * A distinctive anchor has ≥ ANCHOR_SAMPLES/2 distinctive samples, so the window it holds has at
 * least this many; quieter windows can never be part of an anchor match and are not indexed.
 */
const KEY_MIN_DISTINCT = Math.ceil(ANCHOR_SAMPLES / 2) - (KEY_STRIDE - 1);
/** Odd multiplier of the polynomial window hash. */
const HASH_MULTIPLIER = 0x01000193;
/** Fibonacci hashing: the top bits of hash × 2³²/φ pick the bucket. */
const BUCKET_MIXER = 0x9e3779b1;

/** Hash of clip[at…at+KEY_SAMPLES), the same polynomial the index applies to residual windows. */
function hashKey(clip: Int16Array, at: number): number {
  let h = 0;
  for (let k = 0; k < KEY_SAMPLES; k++) h = (Math.imul(h, HASH_MULTIPLIER) + clip[at + k]) | 0;
  return h;
}

/**
 * The residual and a hash index of its windows, so that an anchor is found with O(anchor) work
 * instead of a scan of the whole render. Placing a clip re-indexes the windows it changed; entries
 * the change left stale fail the exact comparison every lookup makes, so lookups return exactly
 * what a left-to-right scan of the residual would.
 */
export class ResidualIndexReference {
  readonly residual: Int32Array;
  private readonly head: Int32Array;
  private readonly bucketShift: number;
  private readonly keyPos: Int32Array;
  private readonly keyHash: Int32Array;
  private readonly keyNext: Int32Array;
  private keys = 0;

  /** `clipLengths`: the clips that may be placed, each re-indexing at most its span. */
  constructor(mix: Int16Array, clipLengths: number[]) {
    this.residual = new Int32Array(mix);
    const slots = Math.floor(mix.length / KEY_STRIDE) + 1;
    const capacity = clipLengths.reduce((sum, len) => sum + Math.ceil((len + KEY_SAMPLES) / KEY_STRIDE) + 1, slots);
    const bits = Math.max(4, Math.ceil(Math.log2(slots)));
    this.head = new Int32Array(1 << bits).fill(-1);
    this.bucketShift = 32 - bits;
    this.keyPos = new Int32Array(capacity);
    this.keyHash = new Int32Array(capacity);
    this.keyNext = new Int32Array(capacity);
    this.index(0, mix.length - 1);
  }

  /** Re-index after residual[o…o+length) changed. */
  update(o: number, length: number): void {
    this.index(o - KEY_SAMPLES + 1, o + length - 1);
  }

  /** Index the windows starting on the stride inside [from, to]. */
  private index(from: number, to: number): void {
    const r = this.residual;
    const last = Math.min(to, r.length - KEY_SAMPLES);
    for (let at = Math.ceil(Math.max(0, from) / KEY_STRIDE) * KEY_STRIDE; at <= last; at += KEY_STRIDE) {
      let loud = 0;
      let h = 0;
      for (let k = 0; k < KEY_SAMPLES; k++) {
        const x = r[at + k];
        // |x| ≥ DISTINCT_LEVEL as one unsigned comparison, without a branch.
        loud += (x + DISTINCT_LEVEL - 1) >>> 0 > 2 * DISTINCT_LEVEL - 2 ? 1 : 0;
        h = (Math.imul(h, HASH_MULTIPLIER) + x) | 0;
      }
      if (loud < KEY_MIN_DISTINCT) continue;
      const b = Math.imul(h, BUCKET_MIXER) >>> this.bucketShift;
      const n = this.keys++;
      this.keyPos[n] = at;
      this.keyHash[n] = h;
      this.keyNext[n] = this.head[b];
      this.head[b] = n;
    }
  }

  /** Offsets o (ascending, at most CANDIDATES_PER_ANCHOR) where the anchor clip[p…p+ANCHOR_SAMPLES) equals residual[o+p…]. */
  candidates(clip: Int16Array, p: number): number[] {
    const r = this.residual;
    const lastStart = r.length - clip.length + p;
    const out: number[] = [];
    for (let d = 0; d < KEY_STRIDE; d++) {
      const h = hashKey(clip, p + d);
      for (let n = this.head[Math.imul(h, BUCKET_MIXER) >>> this.bucketShift]; n >= 0; n = this.keyNext[n]) {
        const i = this.keyPos[n] - d;
        if (this.keyHash[n] !== h || i < p || i > lastStart) continue;
        let k = 0;
        while (k < ANCHOR_SAMPLES && r[i + k] === clip[p + k]) k++;
        if (k === ANCHOR_SAMPLES && !out.includes(i - p)) out.push(i - p);
      }
    }
    return out.sort((a, b) => a - b).slice(0, CANDIDATES_PER_ANCHOR);
  }
}

/** Every offset (ascending) where all samples of the clip match the residual. */
function findFullMatchesReference(index: ResidualIndexReference, wild: Uint8Array, clip: Int16Array, anchors: number[]): number[] {
  const [p] = anchors;
  if (p === undefined) return [];
  const residual = index.residual;
  return index.candidates(clip, p).filter((o) => {
    for (let k = 0; k < clip.length; k++) if (!wild[o + k] && residual[o + k] !== clip[k]) return false;
    return true;
  });
}

/** The offset where a large, distinctive part of the clip matches exactly and no other offset comes close. */
function findPartialMatchReference(index: ResidualIndexReference, wild: Uint8Array, clip: Int16Array, anchors: number[]): number | null {
  const residual = index.residual;
  const tried = new Set<number>();
  let best: { o: number; matched: number } | null = null;
  let second = 0;
  for (const p of anchors) {
    for (const o of index.candidates(clip, p)) {
      if (tried.has(o)) continue;
      tried.add(o);
      let matched = 0;
      let distinct = 0;
      for (let k = 0; k < clip.length; k++) {
        const x = clip[k];
        if (wild[o + k] || residual[o + k] !== x) continue;
        matched++;
        if (x >= DISTINCT_LEVEL || x <= -DISTINCT_LEVEL) distinct++;
      }
      if (distinct < PARTIAL_MIN_DISTINCT || matched < PARTIAL_MIN_SHARE * clip.length) continue;
      if (!best || matched > best.matched) {
        second = best ? best.matched : second;
        best = { o, matched };
      } else {
        second = Math.max(second, matched);
      }
    }
  }
  return best && second * 2 < best.matched ? best.o : null;
}
