// Typed wrapper of the clip-location kernels (assembly/kernels/locate.ts): exact start offsets of deepeval simulation clips inside deepeval-conversation.wav (formats.md F2.4).
//
// The render and each clip are copied into the arena once; every per-sample and per-window loop
// runs in WebAssembly, so no worker has to warm a JIT up for them. What stays here is the order in
// which clips are tried: a handful of kernel calls per clip per peeling round.
import { checkStatus, KernelError } from "./kernel-error.js";
import { peelClips } from "./peel.js";
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

  /** Copy `mix` and the `clips` (null or empty ones are not copied) into the session's arena and index the render. */
  constructor(
    readonly arena: Arena,
    mix: Int16Array | MixSource,
    clips: Array<Int16Array | null>,
  ) {
    this.k = arena.k;
    const k = this.k;
    const n = mix.length;
    this.length = n;
    const lengths = clips.map((c) => (c ? c.length : 0));
    const clipSamples = lengths.reduce((s, len) => s + len, 0);
    const buckets = k.locateBucketCount(n);
    const capacity = k.locateIndexCapacity(n, clipSamples, clips.length);
    const scratchBytes = k.locatePartialScratchSize(PARTIAL_ANCHORS);
    const bytes = 16 * (8 + clips.length) + 5 * n + 4 * buckets + ENTRY_BYTES * capacity + 2 * clipSamples +
      4 * (1 + PARTIAL_ANCHORS) * clips.length + 4 * MAX_HITS + scratchBytes + 4;
    if (bytes + this.arena.used() >= MAX_MEMORY_BYTES) throw new KernelError("OUT_OF_MEMORY", "locateInit", `out of WebAssembly memory allocating ${bytes} bytes`);
    this.state = this.arena.alloc(k.locateStateSize());
    this.residual = this.arena.allocI32(n);
    this.wild = this.arena.alloc(n);
    const head = this.arena.allocI32(buckets);
    const entries = this.arena.alloc(ENTRY_BYTES * capacity);
    this.clipPtr = lengths.map((len) => (len > 0 ? this.arena.allocI16(len) : 0));
    this.clipLength = lengths;
    this.fullAnchor = this.arena.allocI32(clips.length);
    this.partialAnchors = this.arena.allocI32(PARTIAL_ANCHORS * clips.length);
    this.anchorCount = new Int32Array(2 * clips.length).fill(-1);
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
    clips.forEach((c, i) => {
      if (c && c.length > 0) this.arena.copyPcmTo(this.clipPtr[i], c);
    });
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

/**
 * Locate clips inside deepeval's combined render, which is a clamped int32 sum of the clips at their
 * offsets (F2.4). Clips that match the residual exactly are placed and subtracted ("peeled") one by
 * one; a clip overlapped by another is placed on its non-overlapped part when that part matches
 * exactly at one offset, which usually frees its partner for an exact match. Saturated mix samples
 * match anything (the clamp destroyed them). Identical clips (the same audio in k turn files) that
 * match at exactly k offsets are placed in turn order, since turn numbers grow with time. Returns
 * sample offsets, null where no exact, unique placement exists (null clips are skipped). The render
 * is an array, or a MixSource written into WebAssembly memory without a copy in JavaScript.
 */
export function locateClipsInMix(mix: Int16Array | MixSource, clips: Array<Int16Array | null>): Array<number | null> {
  const offsets: Array<number | null> = clips.map(() => null);
  const pending = new Set(clips.flatMap((c, i) => (c && c.length > 0 && c.length <= mix.length ? [i] : [])));
  if (pending.size === 0) return offsets;
  return withArena((arena) => {
    peelClips(pending, offsets, new ClipLocatorSession(arena, mix, clips.map((c, i) => (pending.has(i) ? c : null))));
    return offsets;
  });
}
