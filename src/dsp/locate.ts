// Typed wrapper of the clip-location kernels (assembly/kernels/locate.ts): exact start offsets of deepeval simulation clips inside deepeval-conversation.wav (formats.md F2.4).
//
// The render and each clip are copied into the arena once; every per-sample and per-window loop
// runs in WebAssembly, so no worker has to warm a JIT up for them. What stays here is the order in
// which clips are tried: a handful of kernel calls per clip per peeling round.
import { checkStatus, KernelError } from "./kernel-error.js";
import { INDEX_FULL } from "./kernel-status.js";
import { peelClips, type PendingClips } from "./peel.js";
import { anchorPositionsReference } from "./reference/locate.js";
import { withArena, type Arena, type KernelExports } from "./wasm.js";

/** Anchors tried per clip when only part of it can match (the rest overlaps another clip). */
const PARTIAL_ANCHORS = 16;
/** Offsets a full-match lookup can return (the kernel's CANDIDATES_PER_ANCHOR). */
const MAX_HITS = 8;
/** Bytes of one index entry (window start, hash, next). */
const ENTRY_BYTES = 12;
/** Addressable bytes of a 32-bit WebAssembly memory. */
const MAX_MEMORY_BYTES = 2 ** 32;

/**
 * A render too long to hold in JavaScript: its `length` int16 mono samples are written, piece by
 * piece, straight into WebAssembly memory by `fill` (which calls `put` with consecutive pieces from
 * sample 0; a piece may be reused after `put` returns).
 */
export interface MixSource {
  readonly length: number;
  fill(put: (piece: Int16Array) => void): void;
}

/**
 * A clip read only when its samples are needed (a turn file decoded again each time): the search
 * then holds compact summaries of its clips (length, anchors) instead of their samples. Every call
 * must give the same samples (valid until the next call of any reader of the search); null means the
 * clip cannot be placed (it is skipped).
 */
export type ClipReader = () => Int16Array | null;

/** A clip to locate: its samples, a reader of them, or null (skipped). */
export type LocateClip = Int16Array | ClipReader | null;

/**
 * The clips of one search, each read once up front (one at a time) into a compact summary: its
 * length and, for the windowed search, its anchors (positions here, samples straight into the
 * session's arena: a few hundred bytes a clip). `read(i)` gives clip `i`'s samples again when a
 * kernel needs them (a reader is called again; arrays are returned as they are).
 */
export class ClipCatalog {
  readonly lengths: number[];
  /** Where the first distinctive anchor of each clip starts (-1: none, or anchors not summarised). */
  readonly fullAnchor: Int32Array;
  /** Clip i's anchor positions are positions[anchorStart[i] … anchorStart[i + 1]): its partial-match anchors first (partialCount[i]), then its full-match anchor when it is not one of them. */
  readonly anchorStart: Int32Array;
  readonly partialCount: Int32Array;
  private readonly positionsHeld: Int32Array;
  /** The samples of every anchor, ANCHOR_SAMPLES each, in the order of `positions`, in the arena given (0 without one). */
  readonly anchorSamples: number = 0;

  /**
   * Read every clip once; `summarise(i, length)` says whether to compute its anchors too, whose
   * samples go into `arena` (required then), valid for its session.
   */
  constructor(private readonly clips: LocateClip[], summarise: (i: number, length: number) => boolean, arena?: Arena) {
    const n = clips.length;
    this.lengths = new Array<number>(n).fill(0);
    this.fullAnchor = new Int32Array(n).fill(-1);
    this.anchorStart = new Int32Array(n + 1);
    this.partialCount = new Int32Array(n);
    // At most PARTIAL_ANCHORS + 1 anchors a clip: room for all of them up front, nothing regrown.
    const most = arena ? (PARTIAL_ANCHORS + 1) * n : 0;
    this.positionsHeld = new Int32Array(most);
    if (arena) this.anchorSamples = arena.allocI16(ANCHOR_SAMPLES * most);
    let at = 0;
    for (let i = 0; i < n; i++) {
      this.anchorStart[i] = at;
      const c = clips[i];
      const samples = typeof c === "function" ? c() : c;
      if (!samples) continue;
      this.lengths[i] = samples.length;
      if (!summarise(i, samples.length)) continue;
      if (!arena) throw new Error("a clip's anchors are summarised into an arena");
      // The anchors' readable twin (the kernel's locateAnchors, tested equal).
      const [fullAt] = anchorPositionsReference(samples, 1);
      if (fullAt !== undefined) this.fullAnchor[i] = fullAt;
      const partial = anchorPositionsReference(samples, PARTIAL_ANCHORS);
      this.partialCount[i] = partial.length;
      const own = fullAt === undefined || partial.includes(fullAt) ? partial : [...partial, fullAt];
      const view = arena.i16(this.anchorSamples + 2 * ANCHOR_SAMPLES * at, ANCHOR_SAMPLES * own.length);
      own.forEach((p, a) => {
        this.positionsHeld[at + a] = p;
        view.set(samples.subarray(p, p + ANCHOR_SAMPLES), a * ANCHOR_SAMPLES);
      });
      at += own.length;
    }
    this.anchorStart[n] = at;
  }

  get count(): number {
    return this.clips.length;
  }

  /** Every anchor position, clip after clip (see anchorStart). */
  get positions(): Int32Array {
    return this.positionsHeld.subarray(0, this.anchorStart[this.clips.length]);
  }

  /** Clip `i`'s samples (read again from its reader); throws when they are not what the first read gave. */
  read(i: number): Int16Array {
    const c = this.clips[i];
    const samples = typeof c === "function" ? c() : c;
    if (!samples || samples.length !== this.lengths[i]) {
      throw new Error(`clip ${i} gave ${samples ? `${samples.length} samples` : "nothing"} when read again, ${this.lengths[i]} the first time`);
    }
    return samples;
  }
}

/** The answer of most full-match queries of a window (its clips mostly lie elsewhere): one array, not one per query. */
const NO_HITS: number[] = Object.freeze([]) as unknown as number[];

/** The render, its residual index and the clips, in a session's arena for one locateClipsInMix call. */
export class ClipLocatorSession {
  readonly k: KernelExports;
  readonly state: number;
  /** Int32 residual (the render minus the clips placed so far) and the u8 mask of saturated samples. */
  readonly residual: number;
  readonly wild: number;
  readonly length: number;
  private readonly clipPtr: number[];
  private readonly clipLength: number[];
  private readonly fullAnchor: number;
  private readonly partialAnchors: number;
  private readonly anchorCount: Int32Array;
  private readonly hits: number;
  private readonly scratch: number;
  private readonly out: number;

  /**
   * Copy `mix` and the `clips` (null or empty ones are not copied) into the session's arena and index
   * the render. Clips of a catalog are read one at a time (those `only` names, when given).
   */
  constructor(
    readonly arena: Arena,
    mix: Int16Array | MixSource,
    clips: Array<Int16Array | null> | ClipCatalog,
    only?: ReadonlySet<number>,
  ) {
    this.k = arena.k;
    const k = this.k;
    const n = mix.length;
    this.length = n;
    const catalog = clips instanceof ClipCatalog ? clips : null;
    const count = catalog ? catalog.count : (clips as Array<Int16Array | null>).length;
    const lengths = Array.from({ length: count }, (_, i) =>
      only && !only.has(i) ? 0 : catalog ? catalog.lengths[i] : ((clips as Array<Int16Array | null>)[i]?.length ?? 0),
    );
    const clipSamples = lengths.reduce((s, len) => s + len, 0);
    const buckets = k.locateBucketCount(n);
    const capacity = k.locateIndexCapacity(n, clipSamples, count);
    const scratchBytes = k.locatePartialScratchSize(PARTIAL_ANCHORS);
    const bytes = 16 * (8 + count) + 5 * n + 4 * buckets + ENTRY_BYTES * capacity + 2 * clipSamples +
      4 * (1 + PARTIAL_ANCHORS) * count + 4 * MAX_HITS + scratchBytes + 4;
    if (bytes + this.arena.used() >= MAX_MEMORY_BYTES) throw new KernelError("OUT_OF_MEMORY", "locateInit", `out of WebAssembly memory allocating ${bytes} bytes`);
    this.state = this.arena.alloc(k.locateStateSize());
    this.residual = this.arena.allocI32(n);
    this.wild = this.arena.alloc(n);
    const head = this.arena.allocI32(buckets);
    const entries = this.arena.alloc(ENTRY_BYTES * capacity);
    this.clipPtr = lengths.map((len) => (len > 0 ? this.arena.allocI16(len) : 0));
    this.clipLength = lengths;
    this.fullAnchor = this.arena.allocI32(count);
    this.partialAnchors = this.arena.allocI32(PARTIAL_ANCHORS * count);
    this.anchorCount = new Int32Array(2 * count).fill(-1);
    this.hits = this.arena.allocI32(MAX_HITS);
    this.scratch = this.arena.alloc(scratchBytes);
    this.out = this.arena.allocI32(1);
    // The render goes into the upper half of the residual region, which the kernel widens in place.
    const mixPtr = this.residual + 2 * n;
    if (mix instanceof Int16Array) this.arena.copyPcmTo(mixPtr, mix);
    else {
      let at = 0;
      mix.fill((piece) => {
        if (at + piece.length > n) throw new RangeError(`the render gave more than the ${n} samples it declared`);
        this.arena.copyPcmTo(mixPtr + 2 * at, piece);
        at += piece.length;
      });
      if (at !== n) throw new RangeError(`the render gave ${at} samples, expected ${n}`);
    }
    for (let i = 0; i < count; i++) {
      if (lengths[i] > 0) this.arena.copyPcmTo(this.clipPtr[i], catalog ? catalog.read(i) : ((clips as Array<Int16Array | null>)[i] as Int16Array));
    }
    checkStatus(k.locateInit(this.state, mixPtr, n, this.residual, this.wild, head, buckets, entries, capacity), "locateInit");
  }

  /** Where the first distinctive anchor of clip `i` starts (null when it has none), computed once. */
  private fullAnchorOf(i: number): number | null {
    if (this.anchorCount[2 * i] < 0) {
      this.anchorCount[2 * i] = this.k.locateAnchors(this.clipPtr[i], this.clipLength[i], 1, this.fullAnchor + 4 * i);
    }
    return this.anchorCount[2 * i] === 0 ? null : this.arena.i32(this.fullAnchor + 4 * i, 1)[0];
  }

  /** Pointer to and number of the partial-match anchors of clip `i`, computed once. */
  private partialAnchorsOf(i: number): [number, number] {
    const ptr = this.partialAnchors + 4 * PARTIAL_ANCHORS * i;
    if (this.anchorCount[2 * i + 1] < 0) {
      this.anchorCount[2 * i + 1] = this.k.locateAnchors(this.clipPtr[i], this.clipLength[i], PARTIAL_ANCHORS, ptr);
    }
    return [ptr, this.anchorCount[2 * i + 1]];
  }

  /** Every offset (ascending) where all samples of clip `i` match the residual. */
  fullMatches(i: number): number[] {
    const p = this.fullAnchorOf(i);
    if (p === null) return [];
    const count = checkStatus(this.k.locateFullMatches(this.state, this.clipPtr[i], this.clipLength[i], p, this.hits), "locateFullMatches");
    return count === 0 ? [] : Array.from(this.arena.i32(this.hits, count));
  }

  /** The offset where a large, distinctive part of clip `i` matches exactly and no other offset comes close. */
  partialMatch(i: number): number | null {
    const [anchors, count] = this.partialAnchorsOf(i);
    const found = checkStatus(this.k.locatePartialMatch(this.state, this.clipPtr[i], this.clipLength[i], anchors, count, this.scratch, this.out), "locatePartialMatch");
    return found === 0 ? null : this.arena.i32(this.out, 1)[0];
  }

  /** Whether clips `i` and `j` hold the same samples. */
  sameSamples(i: number, j: number): boolean {
    if (i === j) return true;
    if (this.clipLength[i] !== this.clipLength[j]) return false;
    return this.k.locateSameSamples(this.clipPtr[i], this.clipPtr[j], this.clipLength[i]) === 1;
  }

  /** Peel clip `i` placed at `offset` off the residual. */
  place(i: number, offset: number): void {
    checkStatus(this.k.locatePlace(this.state, this.clipPtr[i], this.clipLength[i], offset), "locatePlace");
  }
}

/** Options of locateClipsInMix. */
export interface LocateOptions {
  /**
   * Samples of render held at once by the windowed search; a window grows (doubles) only when no
   * cut fits in it. Renders no longer than this are searched whole. @defaultValue 1,048,576
   */
  windowSamples?: number;
  /** "windowed" (default) or "whole" (the whole render in memory, as before windowing). */
  search?: "windowed" | "whole";
  /**
   * Told which search gave the result: "windowed"; "component" when the windowed search's tangled
   * segments were searched again together; "whole" also when the windowed search fell back to it.
   */
  onSearch?: (search: LocateSearch) => void;
  /**
   * Render samples a search may hold at once beyond its window: the largest set of tangled segments
   * searched together, and the longest render searched whole when windows cannot be used.
   * @defaultValue 4,194,304 (LOCATE_MAX_SEARCH_SAMPLES)
   */
  maxSearchSamples?: number;
  /** Told the clips left unplaced because placing them exactly needs more than maxSearchSamples of render at once. */
  onOverBudget?: (clips: number[], samplesNeeded: number) => void;
  /** Told the WebAssembly arena bytes the search used (its peak: the arena only grows within a search). */
  onArenaUsed?: (bytes: number) => void;
}

/** Default samples of render per window (44 s at 24 kHz). */
export const LOCATE_WINDOW_SAMPLES = 1 << 20;
/** Default render samples one search may hold at once beyond its window (2.9 min at 24 kHz; about 13 bytes of arena a sample while searched). */
export const LOCATE_MAX_SEARCH_SAMPLES = 1 << 22;

/** Which search placed the clips (see LocateOptions.onSearch). */
export type LocateSearch = "windowed" | "component" | "whole";

/**
 * Locate clips inside deepeval's combined render, which is a clamped int32 sum of the clips at their
 * offsets (F2.4). Clips that match the residual exactly are placed and subtracted ("peeled") one by
 * one; a clip overlapped by another is placed on its non-overlapped part when that part matches
 * exactly at one offset, which usually frees its partner for an exact match. Saturated mix samples
 * match anything (the clamp destroyed them). Identical clips (the same audio in k turn files) that
 * match at exactly k offsets are placed in turn order, since turn numbers grow with time. Returns
 * sample offsets, null where no exact, unique placement exists (null clips are skipped). The render
 * is an array, or a MixSource written into WebAssembly memory without a copy in JavaScript. A clip
 * is an array or a ClipReader: a reader is called once up front and again wherever a kernel needs
 * the clip's samples (windowed: where its anchors occur, and to tell twins apart), so that only a
 * summary of each clip (its length and anchors) is held between.
 *
 * A render longer than one window is searched window by window (WindowedClipLocator), with the
 * same results. Segments the windows could not search apart (a clip's audio occurring in two, a
 * clip across a cut) are searched again, each group of them side by side in one search of their own
 * (searchTangles), with the same results, reading a MixSource a second time. A search holds at most
 * `maxSearchSamples` of render beyond its window: a group over it keeps the windowed placements
 * except for the clips that tied it, which are left unplaced (onOverBudget); the whole render is
 * searched instead only when a group cannot be searched apart and the render fits the budget.
 */
export function locateClipsInMix(mix: Int16Array | MixSource, clips: LocateClip[], options: LocateOptions = {}): Array<number | null> {
  const offsets: Array<number | null> = clips.map(() => null);
  const windowSamples = Math.max(WINDOW_FLOOR, Math.floor(options.windowSamples ?? LOCATE_WINDOW_SAMPLES));
  const budget = Math.max(windowSamples, Math.floor(options.maxSearchSamples ?? LOCATE_MAX_SEARCH_SAMPLES));
  const fits = (length: number) => length > 0 && length <= mix.length;
  const eligibleOf = (catalog: ClipCatalog) => catalog.lengths.flatMap((length, i) => (fits(length) ? [i] : []));
  let peak = 0;
  const noteArena = (arena: Arena) => {
    peak = Math.max(peak, arena.used());
    options.onArenaUsed?.(peak);
  };
  // Each clip is read once up front, one at a time: the searches keep its length (and, windowed, its
  // anchors) and read it again when a kernel needs its samples.
  let catalog: ClipCatalog | null = null;
  if (options.search !== "whole" && mix.length > windowSamples) {
    const done = withArena((arena) => {
      catalog = new ClipCatalog(clips, (_, length) => fits(length), arena);
      const pending = new Set(eligibleOf(catalog));
      if (pending.size === 0) return null;
      const locator = new WindowedClipLocator(arena, mix.length, catalog, pending, offsets, windowSamples);
      const ok = locator.run(mix);
      noteArena(arena);
      return ok ? locator.tangles() : false;
    });
    if (done === null) return offsets;
    if (done !== false && done.groups.length === 0) {
      options.onSearch?.("windowed");
      return offsets;
    }
    if (done !== false && searchTangles(mix, clips, done, offsets, fits, budget, options, noteArena)) {
      options.onSearch?.("component");
      return offsets;
    }
    offsets.fill(null);
    if (mix.length > budget) {
      // No window can be trusted and the whole render is over the budget: nothing is placed.
      const all = eligibleOf(catalog as unknown as ClipCatalog);
      if (all.length > 0) options.onOverBudget?.(all, mix.length);
      options.onSearch?.("windowed");
      return offsets;
    }
  }
  const all: ClipCatalog = catalog ?? new ClipCatalog(clips, () => false);
  const pending = new Set(eligibleOf(all));
  if (pending.size === 0) return offsets;
  options.onSearch?.("whole");
  return withArena((arena) => {
    peelClips(pending, offsets, new ClipLocatorSession(arena, mix, all, pending));
    noteArena(arena);
    return offsets;
  });
}

/** What the windowed search leaves to a second search: its segments, and those it could not search apart. */
export interface Tangles {
  /** Segment s is [starts[s], starts[s + 1]), the last one ending at the render's end. */
  starts: number[];
  /** The residual each segment but the last left in its last MARGIN samples. */
  tails: Int32Array[];
  /** The segment each clip's anchors occurred in (-1: nowhere). */
  home: Int32Array;
  /** 1 for the clips that tied segments (their anchors occurred in two, or across a cut). */
  cross: Uint8Array;
  /** Tied segments, grouped. */
  groups: Tangle[];
}

/** Segments that must be searched together, and the clips whose anchors occurred in them. */
export interface Tangle {
  segments: number[];
  clips: number[];
}

/** A part of a tangle as the second search lays it out: MARGIN render samples before it (fewer at the render's start or after the previous part), then its samples. */
interface VirtualPart {
  /** First render sample held (the margin's), and the end of the part. */
  realFrom: number;
  realTo: number;
  /** Where the part's first held sample, and its own first sample, lie in the search's render. */
  vFrom: number;
  vStart: number;
}

/** The parts of a tangle (runs of consecutive segments), with their margins, side by side. */
function layoutParts(segments: number[], starts: number[], n: number): VirtualPart[] {
  const out: VirtualPart[] = [];
  let v = 0;
  let previousEnd = 0;
  const sorted = [...segments].sort((a, b) => a - b);
  for (let k = 0; k < sorted.length; ) {
    let last = k;
    while (last + 1 < sorted.length && sorted[last + 1] === sorted[last] + 1) last++;
    const start = starts[sorted[k]];
    const end = sorted[last] + 1 < starts.length ? starts[sorted[last] + 1] : n;
    const margin = Math.min(MARGIN, start - previousEnd);
    out.push({ realFrom: start - margin, realTo: end, vFrom: v, vStart: v + margin });
    v += end - start + margin;
    previousEnd = end;
    k = last + 1;
  }
  return out;
}

/** Samples held by the parts. */
function partsLength(parts: VirtualPart[]): number {
  const last = parts[parts.length - 1];
  return last ? last.vFrom + (last.realTo - last.realFrom) : 0;
}

/**
 * Search each tangle again, its parts side by side in one render of their own, as the whole search
 * would: a tangle's clips occur only in its parts, so the whole search makes the same placements
 * there. The search checks this again as it goes; an anchor occurrence across a part's edge, or of
 * a clip from outside the tangle, adds the segment or clip it names (and the tangle holding it) and
 * the tangle is searched again. A tangle over `budget` samples keeps the windowed search's
 * placements except for the clips that tied it, which are left unplaced (onOverBudget). False when
 * a tangle cannot be searched apart and the whole render, within the budget, is to be searched instead.
 */
function searchTangles(
  mix: Int16Array | MixSource,
  clips: LocateClip[],
  found: Tangles,
  offsets: Array<number | null>,
  fits: (length: number) => boolean,
  budget: number,
  options: LocateOptions,
  noteArena: (arena: Arena) => void,
): boolean {
  const n = mix.length;
  const { starts, home, cross } = found;
  const groups: Array<Tangle | null> = found.groups.map((g) => ({ segments: [...g.segments], clips: [...g.clips] }));
  const owner = new Int32Array(starts.length).fill(-1);
  groups.forEach((g, k) => g?.segments.forEach((s) => (owner[s] = k)));
  /** Add clip `i` or the segments [from, to] (with the tangles holding them) to tangle k; false when it holds them already. */
  const widen = (k: number, segments: [number, number] | undefined, i?: number): boolean => {
    const t = groups[k] as Tangle;
    let [from, to] = segments ?? [-1, -2];
    let grew = false;
    if (i !== undefined && !t.clips.includes(i)) {
      t.clips.push(i);
      grew = true;
      if (home[i] >= 0) from = to = home[i];
    }
    for (let s = from; s <= to; s++) {
      if (owner[s] === k) continue;
      const other = owner[s] >= 0 ? groups[owner[s]] : null;
      const added = other ? other.segments : [s];
      for (const x of added) owner[x] = k;
      t.segments.push(...added);
      if (other) {
        for (const c of other.clips) if (!t.clips.includes(c)) t.clips.push(c);
        groups[groups.indexOf(other)] = null;
      }
      // The clips whose anchors occurred in the added segments come with them.
      const fresh = new Set(added);
      for (let c = 0; c < home.length; c++) if (fresh.has(home[c]) && !t.clips.includes(c)) t.clips.push(c);
      grew = true;
    }
    return grew;
  };
  /** Leave the clips that tied tangle `t` unplaced: searching it needs `needed` samples. */
  const giveUp = (t: Tangle, needed: number) => {
    const tied = t.clips.filter((i) => cross[i]).sort((a, b) => a - b);
    for (const i of tied) offsets[i] = null;
    options.onOverBudget?.(tied, needed);
  };
  return withArena((arena) => {
    // Every clip is read once more into a catalog of their anchors, only when a tangle is searched.
    let catalog: ClipCatalog | null = null;
    let mark = 0;
    for (let k = 0; k < groups.length; k++) {
      for (;;) {
        const t = groups[k];
        if (!t) break;
        // A part right after another tangle's segment takes that tangle in: a margin holds the
        // residual its segment was left with by the windowed search, which another tangle may change.
        const before = t.segments.find((s) => s > 0 && owner[s - 1] >= 0 && owner[s - 1] !== k);
        if (before !== undefined && widen(k, [before - 1, before - 1])) continue;
        const parts = layoutParts(t.segments, starts, n);
        const length = partsLength(parts);
        if (length > budget) {
          giveUp(t, length);
          break;
        }
        const margins = parts.flatMap((p): Margin[] => {
          const margin = p.vStart - p.vFrom;
          return margin === 0 ? [] : [{ at: p.vFrom, values: found.tails[segmentAt(starts, p.realFrom + margin) - 1].subarray(MARGIN - margin) }];
        });
        if (!catalog) {
          catalog = new ClipCatalog(clips, (_, length) => fits(length), arena);
          mark = arena.used();
        }
        const lengths = catalog.lengths;
        const mine = new Set(t.clips.filter((i) => fits(lengths[i])).sort((a, b) => a - b));
        const foreign = lengths.flatMap((len, i) => (fits(len) && !mine.has(i) ? [i] : []));
        const local: Array<number | null> = clips.map(() => null);
        const locator = new WindowedClipLocator(arena, length, catalog, new Set(mine), local, length, { parts, realLength: n, starts, foreign, margins });
        const ok = locator.run(partsOf(mix, parts, length));
        noteArena(arena);
        arena.rewind(mark);
        if (ok) {
          for (const i of mine) {
            const o = local[i];
            offsets[i] = o === null ? null : toRender(parts, o);
          }
          break;
        }
        if (locator.wants && widen(k, locator.wants.segments, locator.wants.clip)) continue;
        // Nothing to add that would help: the whole render, if it fits the budget.
        if (n <= budget) return false;
        giveUp(t, n);
        break;
      }
    }
    return true;
  });
}

/** The render offset of an offset `o` of the parts' own render (a clip placed there starts in a part). */
function toRender(parts: VirtualPart[], o: number): number {
  const p = parts[partAt(parts, o)];
  return p.realFrom + (o - p.vFrom);
}

/** Index of the last of the ascending `values` at or below `x` (0 when none is). */
function lastAtOrBelow<T>(items: T[], x: number, value: (item: T) => number): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (value(items[mid]) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the part whose held samples include `v`. */
const partAt = (parts: VirtualPart[], v: number) => lastAtOrBelow(parts, v, (p) => p.vFrom);
/** The segment holding render sample `x`. */
const segmentAt = (starts: number[], x: number) => lastAtOrBelow(starts, x, (s) => s);

/** The render's samples in the parts (with their margins), one after another: read again from the start. */
function partsOf(mix: Int16Array | MixSource, parts: VirtualPart[], length: number): MixSource {
  return {
    length,
    fill(put) {
      let p = 0;
      const forward = (piece: Int16Array, at: number) => {
        const end = at + piece.length;
        while (p < parts.length && parts[p].realFrom < end) {
          const from = Math.max(parts[p].realFrom, at);
          const to = Math.min(parts[p].realTo, end);
          if (to > from) put(piece.subarray(from - at, to - at));
          if (parts[p].realTo > end) return;
          p++;
        }
      };
      if (mix instanceof Int16Array) forward(mix, 0);
      else {
        let at = 0;
        mix.fill((piece) => {
          forward(piece, at);
          at += piece.length;
        });
      }
    },
  };
}

/** Smallest window the windowed search accepts (a cut needs room for its margins). */
const WINDOW_FLOOR = 4096;
/** Render samples kept before a window's first segment sample: one anchor, so anchors straddling a cut are seen whole. */
const MARGIN = 24;
/** Anchor occurrences one scan reports at most; a range with more (a periodic clip) is scanned in halves. */
const SCAN_CAP = 1 << 16;

/** A second search of tangled segments (searchTangles): their parts, the render's length and segments, and the clips from outside the tangle. */
interface TangleSearch {
  parts: VirtualPart[];
  realLength: number;
  starts: number[];
  foreign: number[];
  margins: Margin[];
}

/** Residual values at a window offset. */
interface Margin {
  at: number;
  values: Int32Array;
}

/** Thrown inside MixSource.fill to stop reading: the layout needs a larger search. */
class NeedsLargerSearch extends Error {
  /** What a second search would need to hold as well to go on: the segments from one to another, or a clip. */
  constructor(readonly segments?: [number, number], readonly clip?: number) {
    super("the layout needs a larger search");
  }
}
/** Thrown by a window's peeling when the residual index outgrew its reservation: the window is redone with more room. */
class IndexFull extends Error {}

/** Where a clip's anchors occur in the current window (any state of its residual), as clip offsets in the render. */
interface Occurrences {
  minOffset: number;
  maxEnd: number;
  /** Each offset (null once there are more than MAX_OFFSETS: [minOffset, maxEnd) stands for them). */
  at: number[] | null;
}

/** Offsets of one clip's occurrences kept apart in a window. */
const MAX_OFFSETS = 64;

/**
 * The windowed search: the same placements as the whole-render search (peelClips over one
 * ClipLocatorSession), holding only a window of the render at a time.
 *
 * The render is cut into segments [s₀, s₁), [s₁, s₂), …; a window holds its segment plus MARGIN
 * samples before it (holding the residual the previous segment left there) and whatever follows up
 * to the window's end. Every state the residual takes is
 * scanned for every anchor of every clip (full-match and partial-match anchors, locateScanAnchors):
 * the whole window once, then the span each placement changed. A clip whose anchors occur nowhere in
 * the window cannot match there, so it is not tried. A window is cut at s (the next segment's
 * start) where no placed clip reaches past s, no occurrence of a pending clip spans s, and at least
 * MARGIN samples of the window follow s (a quarter window before its end, or just after the placed
 * clips if they end later). When no such s exists (turns overlapping across the window's end), the
 * window is searched again shorter, ending where those turns begin; when that fails too it is cut
 * anyway and the segments on both sides are tied. A window never grows.
 *
 * The results equal the whole search's when every anchor occurrence of a clip, over all states of
 * all windows, lies in one segment with the clip's whole span inside it: then every query of the
 * whole search sees exactly the candidates the clip's segment sees, placements in one segment never
 * change another's candidates, and the whole search, restricted to one segment, makes the same
 * placements in the same order (its extra passes over other segments' clips change nothing here).
 * The search checks this as it goes. An occurrence that breaks it ties the segments it touches: a
 * clip's anchors occurring in two segments (a clip repeated in the render away from its twins, or a
 * placed clip's audio occurring again later), or a clip crossing a cut. Tied segments are searched
 * again together after the run (tangles(), searchTangles), where the same class checks, over the
 * tied segments laid side by side (`again`), that nothing occurs across their edges and no other
 * clip occurs in them, and names what it would need to hold as well when something does (`wants`).
 * Start times in file order are not
 * required: deepeval's render is ordered by start time and turn files by turn number, and a clip
 * may lie anywhere in the render.
 */
export class WindowedClipLocator {
  private readonly k: KernelExports;
  private readonly lengths: number[];
  /** 1 once a clip's segment is closed (placed there, or its anchors occur only there): any later occurrence breaks the layout. */
  private readonly homed: Uint8Array;
  /** Anchors: owning clip and position in it, samples in the arena. */
  private readonly anchorClip: Int32Array;
  private readonly anchorPos: Int32Array;
  private readonly fullAnchor: Int32Array;
  private readonly partialAnchors: number;
  private readonly partialCount: Int32Array;
  private readonly tableAnchors: number;
  private readonly tableHead: number;
  private readonly tableBuckets: number;
  private readonly tableEntries: number;
  private readonly scanOut: number;
  private readonly state: number;
  private readonly hits: number;
  private readonly scratch: number;
  private readonly out: number;
  // Window buffers (reallocated when the window grows or the index needs more room).
  private windowSamples: number;
  private extraEntries: number;
  private residual = 0;
  private wild = 0;
  private head = 0;
  private entries = 0;
  private capacity = 0;
  /** The render samples of the window, [start, start + filled), int16 in the arena (each sample enters it once). */
  private mixBuf = 0;
  private start = 0;
  private filled = 0;
  /** First sample of the current segment. */
  private segStart = 0;
  // Per window.
  private windowLength = 0;
  private readonly occ = new Map<number, Occurrences>();
  private placedHere: number[] = [];
  /** Where the turns that left a window without a cut begin (render sample). */
  private blockedAt = 0;
  private readonly pool: ClipPool;
  /** The pending clips as the window's peeling sees them: those whose anchors occur in the window. */
  private readonly tryable: WindowPending;
  /** Pairs of clips whose anchors agree, compared sample by sample: whether they are the same. */
  private readonly compared = new Map<number, boolean>();
  /** After a run that failed: what a second search would need to hold as well. */
  wants: NeedsLargerSearch | null = null;
  /** The residual each segment but the last left in its last MARGIN samples. */
  private readonly tails: Int32Array[] = [];
  /** Residual values written over the window's after it is initialised from the render (its margins). */
  private carry: Margin[];
  /** Where each segment starts (segment s is [segmentStarts[s], segmentStarts[s + 1] or n)). */
  private readonly segmentStarts: number[] = [0];
  /** Union-find over segments: segments tied by a clip whose anchors occur in both. */
  private readonly parent: number[] = [0];
  /** The segment each clip's anchors occurred in (-1: none yet), and 1 for clips that tied segments. */
  private readonly homeSegment: Int32Array;
  private readonly cross: Uint8Array;

  /** `clips`: every pending clip summarised with its anchors. */
  constructor(
    private readonly arena: Arena,
    private readonly n: number,
    private readonly clips: ClipCatalog,
    private readonly pending: Set<number>,
    private readonly offsets: Array<number | null>,
    windowSamples: number,
    private readonly again?: TangleSearch,
  ) {
    const k = (this.k = arena.k);
    this.lengths = clips.lengths;
    this.homed = new Uint8Array(clips.count);
    this.homeSegment = new Int32Array(clips.count).fill(-1);
    this.cross = new Uint8Array(clips.count);
    // Searching tangles again: another tangle's clip occurring here breaks the layout at once.
    for (const i of again?.foreign ?? []) this.homed[i] = 1;
    this.carry = again?.margins ?? [];
    this.fullAnchor = clips.fullAnchor;
    this.partialCount = clips.partialCount;
    const maxLength = Math.max(...[...pending].map((i) => this.lengths[i]));
    this.windowSamples = Math.max(windowSamples, 2 * maxLength + 4 * MARGIN);
    this.extraEntries = Math.floor(this.windowSamples / 4) + 64;
    this.state = arena.alloc(k.locateStateSize());
    this.hits = arena.allocI32(MAX_HITS);
    this.scratch = arena.alloc(k.locatePartialScratchSize(PARTIAL_ANCHORS));
    this.out = arena.allocI32(1);
    this.scanOut = arena.allocI32(2 * SCAN_CAP);
    // Anchors of every clip that may be placed (the catalog's summaries, every eligible clip's, in
    // clip order as `pending` is): a clip enters the arena only where it is tried.
    this.partialAnchors = arena.allocI32(PARTIAL_ANCHORS * clips.count);
    const anchorSamples = k.locateAnchorSamples();
    if (anchorSamples !== ANCHOR_SAMPLES) throw new Error(`the kernel's anchors are ${anchorSamples} samples, the catalog's ${ANCHOR_SAMPLES}`);
    const positions = clips.positions;
    const count = positions.length;
    this.anchorClip = new Int32Array(count);
    for (let i = 0; i < clips.count; i++) {
      const from = clips.anchorStart[i];
      if (clips.anchorStart[i + 1] === from) continue;
      arena.i32(this.partialAnchors + 4 * PARTIAL_ANCHORS * i, this.partialCount[i]).set(positions.subarray(from, from + this.partialCount[i]));
      this.anchorClip.fill(i, from, clips.anchorStart[i + 1]);
    }
    this.anchorPos = positions;
    this.tableAnchors = clips.anchorSamples;
    // About two of the 8·count entries a bucket, each bucket's entries side by side.
    this.tableBuckets = Math.max(16, 2 ** Math.ceil(Math.log2(Math.max(1, 4 * count))));
    this.tableHead = arena.allocI32(this.tableBuckets + 1);
    this.tableEntries = arena.alloc(k.locateAnchorEntryBytes(count));
    checkStatus(k.locateAnchorTableInit(this.tableAnchors, count, this.tableHead, this.tableBuckets, this.tableEntries), "locateAnchorTableInit");
    this.pool = new ClipPool(arena, Math.max(maxLength, this.windowSamples));
    this.tryable = new WindowPending(pending);
    this.allocateWindow();
    this.mixBuf = arena.allocI16(this.windowSamples);
  }

  /** (Re)allocate the window's residual, mask and index for windowSamples samples and extraEntries re-index entries. */
  private allocateWindow(): void {
    const w = this.windowSamples;
    this.residual = this.arena.allocI32(w);
    this.wild = this.arena.alloc(w);
    this.head = this.arena.allocI32(this.k.locateBucketCount(w));
    this.capacity = Math.floor(w / 8) + 1 + this.extraEntries;
    this.entries = this.arena.alloc(ENTRY_BYTES * this.capacity);
  }

  /** Read the render through and place the clips; false when the whole render has to be searched instead. */
  run(mix: Int16Array | MixSource): boolean {
    try {
      if (mix instanceof Int16Array) {
        const piece = 65536;
        for (let at = 0; at < mix.length; at += piece) this.push(mix.subarray(at, Math.min(mix.length, at + piece)));
      } else {
        let total = 0;
        mix.fill((piece) => {
          total += piece.length;
          if (total > this.n) throw new RangeError(`the render gave more than the ${this.n} samples it declared`);
          this.push(piece);
        });
        if (total !== this.n) throw new RangeError(`the render gave ${total} samples, expected ${this.n}`);
      }
      this.window(true);
      return true;
    } catch (e) {
      if (e instanceof NeedsLargerSearch) {
        this.wants = e;
        return false;
      }
      throw e;
    }
  }

  private push(piece: Int16Array): void {
    let at = 0;
    while (at < piece.length) {
      const take = Math.min(piece.length - at, this.windowSamples - this.filled);
      this.arena.copyPcmTo(this.mixBuf + 2 * this.filled, piece.subarray(at, at + take));
      this.filled += take;
      at += take;
      if (this.filled === this.windowSamples && this.start + this.filled < this.n) this.window(false);
    }
  }

  /** Search the buffered window; when it is not the last, cut it and keep its tail. */
  private window(last: boolean): void {
    let m = this.filled;
    let forced = false;
    for (;;) {
      const cut = this.search(last, m, forced);
      if (cut === "index-full") {
        this.extraEntries *= 2;
        this.allocateWindow();
        continue;
      }
      if (cut === null) {
        // No cut fits (turns overlapping across the window's end): first a shorter window, ending
        // where those turns begin, so that they are left whole to the next window…
        const shorter = this.blockedAt + MARGIN - this.start;
        if (shorter < m && shorter > 4 * MARGIN) {
          m = shorter;
          continue;
        }
        // …else it is cut where it would have been whatever lies across, tying the segments on both
        // sides of the cut (searched again together after the run): a window never grows.
        m = this.filled;
        forced = true;
        continue;
      }
      if (last) return;
      const keepFrom = cut - MARGIN - this.start;
      // The residual before the cut, as this segment leaves it: the next window's margin.
      const tail = Int32Array.from(this.arena.i32(this.residual + 4 * keepFrom, MARGIN));
      this.tails.push(tail);
      this.carry = [{ at: 0, values: tail }];
      this.arena.u8(0, this.mixBuf + 2 * this.filled).copyWithin(this.mixBuf, this.mixBuf + 2 * keepFrom, this.mixBuf + 2 * this.filled);
      this.pool.keep((i) => this.pending.has(i) && !this.homed[i]);
      this.filled -= keepFrom;
      this.start += keepFrom;
      this.segStart = cut;
      this.segmentStarts.push(cut);
      this.parent.push(this.parent.length);
      if (forced) this.union(this.parent.length - 2, this.parent.length - 1);
      return;
    }
  }

  /** Undo the window's placements (the window is searched again). */
  private undo(): void {
    for (const i of this.placedHere) this.offsets[i] = null;
    const all = new Set([...this.pending, ...this.placedHere].sort((a, b) => a - b));
    this.pending.clear();
    for (const i of all) this.pending.add(i);
    this.placedHere = [];
  }

  /**
   * Peel the first `m` samples of the window; the segment's end (the cut), null when no cut fits
   * (blockedAt then says where the turns that prevent one begin), "index-full" to redo with more index room.
   */
  private search(last: boolean, m: number, forced = false): number | null | "index-full" {
    const k = this.k;
    this.windowLength = m;
    this.occ.clear();
    this.tryable.clear();
    this.placedHere = [];
    checkStatus(k.locateInit(this.state, this.mixBuf, m, this.residual, this.wild, this.head, k.locateBucketCount(m), this.entries, this.capacity), "locateInit");
    // The margins hold the residual their segment was left with, not the render (only scans read them).
    for (const c of this.carry) this.arena.i32(this.residual + 4 * c.at, c.values.length).set(c.values);
    this.scan(0, m - 1);
    try {
      peelClips(this.tryable, this.offsets, this);
    } catch (e) {
      if (!(e instanceof IndexFull)) throw e;
      this.undo();
      return "index-full";
    }
    const end = this.start + m;
    let cut: number;
    if (last) cut = this.n;
    else {
      // The next window starts MARGIN before the cut, and must start later than this one.
      let low = Math.max(this.segStart + 1, this.start + MARGIN + 1);
      // A placed clip may end at the cut: the next window's margin carries the residual it left there.
      for (const i of this.placedHere) low = Math.max(low, (this.offsets[i] as number) + this.lengths[i]);
      // The spans a cut avoids: each occurrence of a pending clip. A cut between two occurrences of a
      // clip leaves the later one to the next window, where it ties the segments.
      const spans: Array<{ minOffset: number; maxEnd: number }> = [];
      for (const [i, o] of this.occ) {
        if (!this.pending.has(i)) low = Math.max(low, o.maxEnd);
        else if (o.at) for (const p of o.at) spans.push({ minOffset: p, maxEnd: p + this.lengths[i] });
        else spans.push(o);
      }
      // A cut a quarter window before the window's end, or after the placed turns if they end later:
      // a turn whose quiet lead-in (no anchor in this window yet) starts before the window's end
      // then lies wholly after the cut. Else the latest cut before the window's end.
      // Move a cut out of every pending turn's span: past its end (`later`) or before its start.
      const clear = (at: number, later: boolean): number => {
        for (let moved = true; moved; ) {
          moved = false;
          for (const s of spans) {
            if (s.minOffset < at && at < s.maxEnd) {
              at = later ? s.maxEnd : s.minOffset;
              moved = true;
            }
          }
        }
        return at;
      };
      cut = clear(Math.max(low, end - MARGIN - Math.floor(m / 4)), true);
      if (cut > end - MARGIN) cut = end - MARGIN;
      cut = clear(cut, false);
      if (cut < low && forced) {
        // Cut a quarter window before its end whatever lies across: the caller ties the segments on
        // both sides, searched again together; the clips occurring across the cut are what tied them.
        cut = Math.max(this.segStart + 1, this.start + MARGIN + 1, end - MARGIN - Math.floor(m / 4));
        for (const [i, o] of this.occ) if (this.pending.has(i) && o.minOffset < cut && o.maxEnd > cut) this.cross[i] = 1;
      } else if (cut < low) {
        let blockedAt = cut;
        for (const i of this.placedHere) {
          const o = this.offsets[i] as number;
          if (o + this.lengths[i] > cut) blockedAt = Math.min(blockedAt, o, this.occ.get(i)?.minOffset ?? o);
        }
        for (const [i, o] of this.occ) if (!this.pending.has(i) && o.maxEnd > cut) blockedAt = Math.min(blockedAt, o.minOffset);
        this.blockedAt = blockedAt;
        this.undo();
        return null;
      }
    }
    // A clip occurring before the cut belongs to this segment; occurring after it too, it ties the next one.
    for (const [i, o] of this.occ) if (!this.pending.has(i) || o.minOffset < cut) this.home(i);
    for (const i of this.placedHere) this.home(i);
    return cut;
  }

  /** Record the anchor occurrences whose stride window starts in [from, to] (window coordinates). */
  private scan(from: number, to: number): void {
    const count = this.k.locateScanAnchors(this.state, this.tableAnchors, this.tableHead, this.tableBuckets, this.tableEntries, from, to, this.scanOut, SCAN_CAP);
    if (count === INDEX_FULL) {
      // More occurrences than the buffer holds (a periodic clip): the range in halves.
      if (to - from < KEY_STRIDE) throw new NeedsLargerSearch();
      const mid = from + Math.floor((to - from) / 2);
      this.scan(from, mid);
      this.scan(mid + 1, to);
      return;
    }
    const found = this.arena.i32(this.scanOut, 2 * checkStatus(count, "locateScanAnchors"));
    for (let f = 0; f < found.length; f += 2) {
      const x = this.start + found[f];
      // Wholly before the segment: the previous window saw it in this same state.
      if (x + MARGIN <= this.segStart) continue;
      const a = found[f + 1];
      const i = this.anchorClip[a];
      const o = x - this.anchorPos[a];
      const end = o + this.lengths[i];
      if (this.again) {
        if (!this.withinPart(x, o, end)) continue;
      } else if (o < 0 || end > this.n) continue;
      if (this.homed[i] || o < this.segStart) {
        if (this.again) throw new NeedsLargerSearch(undefined, i);
        this.tie(i, o);
        continue;
      }
      const seen = this.occ.get(i);
      if (!seen) {
        this.occ.set(i, { minOffset: o, maxEnd: end, at: [o] });
        this.tryable.add(i);
      }
      else {
        seen.minOffset = Math.min(seen.minOffset, o);
        seen.maxEnd = Math.max(seen.maxEnd, end);
        if (seen.at && !seen.at.includes(o)) seen.at = seen.at.length < MAX_OFFSETS ? (seen.at.push(o), seen.at) : null;
      }
    }
  }

  /** Clip `i`'s anchors occurred in the segment being closed: it belongs there. */
  private home(i: number): void {
    this.homed[i] = 1;
    const s = this.segmentStarts.length - 1;
    if (this.homeSegment[i] < 0) this.homeSegment[i] = s;
    else if (this.homeSegment[i] !== s) this.tie(i, this.segStart);
  }

  /**
   * Clip `i`'s anchors occur in this segment though it belongs to another, or it starts (at `o`)
   * before this segment: the segments it touches are tied, to be searched again together.
   */
  private tie(i: number, o: number): void {
    const s = this.segmentStarts.length - 1;
    this.cross[i] = 1;
    if (this.homeSegment[i] < 0) this.homeSegment[i] = s;
    this.union(this.homeSegment[i], s);
    for (let t = segmentAt(this.segmentStarts, Math.max(0, o)); t < s; t++) this.union(t, s);
  }

  private find(s: number): number {
    while (this.parent[s] !== s) s = this.parent[s] = this.parent[this.parent[s]];
    return s;
  }

  private union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }


  /**
   * Searching tangles again: whether the occurrence at `o` (anchor at `x`) of a clip ending at `end`
   * lies in the render at all (false: skip it, as the whole search would); throws when it lies in
   * the render but not wholly inside one part (the parts alone cannot answer for it).
   */
  private withinPart(x: number, o: number, end: number): boolean {
    const parts = (this.again as TangleSearch).parts;
    const p = parts[partAt(parts, x)];
    const realStart = p.realFrom + (o - p.vFrom);
    if (realStart < 0 || realStart + (end - o) > (this.again as TangleSearch).realLength) return false;
    const again = this.again as TangleSearch;
    if (o < p.vStart || end > p.vFrom + (p.realTo - p.realFrom)) {
      throw new NeedsLargerSearch([segmentAt(again.starts, realStart), segmentAt(again.starts, realStart + (end - o) - 1)]);
    }
    return true;
  }

  /** After run(): the segments, and those tied together, grouped, with their clips (no group when every segment stood alone). */
  tangles(): Tangles {
    const groups = new Map<number, Tangle>();
    const segments = this.segmentStarts.length;
    const size = new Int32Array(segments);
    for (let s = 0; s < segments; s++) size[this.find(s)]++;
    for (let s = 0; s < segments; s++) {
      const r = this.find(s);
      if (size[r] < 2) continue;
      let g = groups.get(r);
      if (!g) groups.set(r, (g = { segments: [], clips: [] }));
      g.segments.push(s);
    }
    for (let i = 0; i < this.homeSegment.length; i++) {
      const g = this.homeSegment[i] < 0 ? undefined : groups.get(this.find(this.homeSegment[i]));
      g?.clips.push(i);
    }
    return { starts: this.segmentStarts, tails: this.tails, home: this.homeSegment, cross: this.cross, groups: [...groups.values()] };
  }

  /** Whether the kernels can be asked about clip `i` in this window: its anchors occur here and it fits. */
  private tried(i: number): boolean {
    return this.occ.has(i) && this.lengths[i] <= this.windowLength;
  }

  fullMatches(i: number): number[] {
    if (!this.tried(i) || this.fullAnchor[i] < 0) return NO_HITS;
    const count = checkStatus(this.k.locateFullMatches(this.state, this.pool.pointer(i, this.clips), this.lengths[i], this.fullAnchor[i], this.hits), "locateFullMatches");
    return count === 0 ? [] : Array.from(this.arena.i32(this.hits, count), (o) => o + this.start);
  }

  partialMatch(i: number): number | null {
    if (!this.tried(i)) return null;
    const ptr = this.pool.pointer(i, this.clips);
    const found = checkStatus(
      this.k.locatePartialMatch(this.state, ptr, this.lengths[i], this.partialAnchors + 4 * PARTIAL_ANCHORS * i, this.partialCount[i], this.scratch, this.out),
      "locatePartialMatch",
    );
    return found === 0 ? null : this.arena.i32(this.out, 1)[0] + this.start;
  }

  /** Clips whose lengths and anchors agree are compared sample by sample (both read again, once a pair). */
  sameSamples(i: number, j: number): boolean {
    if (i === j) return true;
    if (!this.sameAnchors(i, j)) return false;
    const key = Math.min(i, j) * this.clips.count + Math.max(i, j);
    let same = this.compared.get(key);
    if (same === undefined) {
      const a = this.clips.read(i).slice();
      const b = this.clips.read(j);
      same = a.every((x, q) => x === b[q]);
      this.compared.set(key, same);
    }
    return same;
  }

  /** Whether clips `i` and `j` have the same length and anchors (positions and samples): clips that differ there differ. */
  private sameAnchors(i: number, j: number): boolean {
    const c = this.clips;
    if (this.lengths[i] !== this.lengths[j] || this.fullAnchor[i] !== this.fullAnchor[j]) return false;
    const a = c.anchorStart[i];
    const b = c.anchorStart[j];
    const count = c.anchorStart[i + 1] - a;
    if (c.anchorStart[j + 1] - b !== count) return false;
    for (let q = 0; q < count; q++) if (this.anchorPos[a + q] !== this.anchorPos[b + q]) return false;
    const view = this.arena.i16(this.tableAnchors, ANCHOR_SAMPLES * this.anchorPos.length);
    for (let q = 0; q < ANCHOR_SAMPLES * count; q++) if (view[ANCHOR_SAMPLES * a + q] !== view[ANCHOR_SAMPLES * b + q]) return false;
    return true;
  }

  place(i: number, offset: number): void {
    const local = offset - this.start;
    const len = this.lengths[i];
    const status = this.k.locatePlace(this.state, this.pool.pointer(i, this.clips), len, local);
    if (status === INDEX_FULL) throw new IndexFull();
    checkStatus(status, "locatePlace");
    this.placedHere.push(i);
    // Every anchor position overlapping the changed samples, through the stride window it holds.
    this.scan(local - (ANCHOR_SAMPLES - 1), local + len - 1 + (KEY_STRIDE - 1));
  }
}

/**
 * The pending clips of a window as peelClips sees them: has() and delete() on all of them; iteration,
 * in clip order (the pending set's order: ascending, as locateClipsInMix and undo() build it), over
 * only those whose anchors occur in the window, including those that come to occur while it runs.
 * Peeling all of them would ask the same questions of the others and get "no match" (their anchors
 * occur nowhere here; a twin's anchors occur wherever its twin's do), at the cost of a pass over
 * every pending clip of hours of turns per round of every window.
 */
class WindowPending implements PendingClips {
  /** Ascending. */
  private readonly active: number[] = [];

  constructor(private readonly all: Set<number>) {}

  /** Index in `active` of the first clip ≥ i. */
  private rank(i: number): number {
    let lo = 0;
    let hi = this.active.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.active[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Clip `i`'s anchors occur in the window: it is tried, if pending. */
  add(i: number): void {
    if (!this.all.has(i)) return;
    const r = this.rank(i);
    if (this.active[r] !== i) this.active.splice(r, 0, i);
  }

  clear(): void {
    this.active.length = 0;
  }

  has(i: number): boolean {
    return this.all.has(i);
  }

  delete(i: number): boolean {
    const r = this.rank(i);
    if (this.active[r] === i) this.active.splice(r, 1);
    return this.all.delete(i);
  }

  *[Symbol.iterator](): Iterator<number> {
    for (let r = 0; r < this.active.length; ) {
      const i = this.active[r];
      yield i;
      // The next clip after i, whatever was added or deleted meanwhile.
      r = this.rank(i + 1);
    }
  }
}

/** Anchor window length (the kernel's ANCHOR_SAMPLES) and index stride (KEY_STRIDE). */
const ANCHOR_SAMPLES = 24;
const KEY_STRIDE = 8;

/**
 * The clips tried in the current window, in one arena region. A clip enters the arena once: when a
 * window is cut, the clips that may still be tried (pending, segment not closed) are moved to the
 * front and the others dropped; a full region is replaced by one twice as large.
 */
class ClipPool {
  private ptr = 0;
  private bytes = 0;
  private used = 0;
  /** Byte offset in the region of each clip held, in placement order. */
  private readonly at = new Map<number, { offset: number; bytes: number }>();

  constructor(private readonly arena: Arena, regionSamples: number) {
    this.bytes = 2 * regionSamples;
    this.ptr = arena.alloc(this.bytes);
  }

  /** Keep only the clips `wanted` says, moved to the front of the region (within WebAssembly memory). */
  keep(wanted: (i: number) => boolean): void {
    const memory = this.arena.u8(0, this.ptr + this.used);
    let used = 0;
    for (const [i, c] of [...this.at].sort((x, y) => x[1].offset - y[1].offset)) {
      if (!wanted(i)) {
        this.at.delete(i);
        continue;
      }
      memory.copyWithin(this.ptr + used, this.ptr + c.offset, this.ptr + c.offset + c.bytes);
      c.offset = used;
      used += c.bytes;
    }
    this.used = used;
  }

  /** Where clip `i` is in the arena, read from the catalog when it is not held yet. */
  pointer(i: number, clips: ClipCatalog): number {
    const held = this.at.get(i);
    if (held) return this.ptr + held.offset;
    const clip = clips.read(i);
    const bytes = (2 * clip.length + 15) & ~15;
    if (this.used + bytes > this.bytes) {
      const size = Math.max(2 * this.bytes, this.used + bytes);
      const ptr = this.arena.alloc(size);
      this.arena.u8(0, ptr + this.used).copyWithin(ptr, this.ptr, this.ptr + this.used);
      this.ptr = ptr;
      this.bytes = size;
    }
    const offset = this.used;
    this.used += bytes;
    this.arena.copyPcmTo(this.ptr + offset, clip);
    this.at.set(i, { offset, bytes });
    return this.ptr + offset;
  }
}
