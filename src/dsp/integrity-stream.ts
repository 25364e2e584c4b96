// The voxmetrics profile's integrity kernels over a float signal pushed chunk by chunk: block levels, runs of digital silence with their edge levels, speech-only WADA sums; equal to ChannelKernels.blockLevels / zeroRuns / wadaSums on the whole signal (acoustics.md §5.1, §5.3).
//
// The repeat scan looks back at most 2·maxLag samples (plus a few blocks). Its quantisation step
// comes from the speech level, so a streamed profile measurement reads the signal twice: levels
// first, then runs, sums and repeats.
import type { RepeatRun, RepeatScanOptions, ZeroRun } from "./channel-kernels.js";
import { checkStatus } from "./kernel-error.js";
import type { Arena } from "./wasm.js";

/** What to measure while the signal streams past (samples; see the whole-clip ChannelKernels methods). */
export interface IntegrityStreamPlan {
  /** Block length of the level contour (ChannelKernels.blockLevels). */
  blockLength: number;
  /** False: no block levels (a second reading that needs only the sums or the repeats). @defaultValue true */
  levels?: boolean;
  /** Samples the signal will have, when known: the levels are then kept in one array of their exact length. */
  expectedLength?: number;
  /** Zero-run searches, each with its minimum run and edge length (ChannelKernels.zeroRuns). */
  zeroRuns: ReadonlyArray<{ minRun: number; edgeLength: number }>;
  /** Sample ranges of the WADA sums, increasing and not overlapping (ChannelKernels.wadaSums); none: no sums. */
  wadaRanges?: ReadonlyArray<readonly [number, number]>;
  /** Repeated-segment scan (ChannelKernels.repeats); none: no scan. */
  repeats?: RepeatScanOptions;
}

/**
 * Runs of digital silence in compact form: 16 bytes a run (its bounds in an Int32Array, its edge
 * levels in a Float32Array, as the kernels give them) instead of an object of four numbers each. A
 * long clip has tens of thousands of runs (every short gap between syllables of synthetic speech).
 */
export class ZeroRunList {
  private bounds = new Int32Array(32);
  private edges = new Float32Array(32);
  /** Runs held. */
  length = 0;

  /** The runs of a list of objects (ChannelKernels.zeroRuns). */
  static of(runs: readonly ZeroRun[]): ZeroRunList {
    const list = new ZeroRunList();
    for (const r of runs) list.push(r.start, r.end, r.beforeDb, r.afterDb);
    return list;
  }

  /** Append a run [start, end) with its edge levels (dB). */
  push(start: number, end: number, beforeDb: number, afterDb: number): void {
    const at = 2 * this.length;
    if (at + 2 > this.bounds.length) {
      const bounds = new Int32Array(2 * this.bounds.length);
      bounds.set(this.bounds);
      this.bounds = bounds;
      const edges = new Float32Array(2 * this.edges.length);
      edges.set(this.edges);
      this.edges = edges;
    }
    this.bounds[at] = start;
    this.bounds[at + 1] = end;
    this.edges[at] = beforeDb;
    this.edges[at + 1] = afterDb;
    this.length++;
  }

  start(k: number): number { return this.bounds[2 * k]; }
  end(k: number): number { return this.bounds[2 * k + 1]; }
  beforeDb(k: number): number { return this.edges[2 * k]; }
  afterDb(k: number): number { return this.edges[2 * k + 1]; }

  /** The runs as objects (as ChannelKernels.zeroRuns gives them). */
  toArray(): ZeroRun[] {
    return Array.from({ length: this.length }, (_, k) => ({ start: this.start(k), end: this.end(k), beforeDb: this.beforeDb(k), afterDb: this.afterDb(k) }));
  }
}

/** What IntegrityStream.finish returns. */
export interface IntegrityStreamResult {
  /** The block levels (empty when the plan asks for none). */
  blockLevels: Float32Array;
  zeroRuns: ZeroRunList[];
  wadaSums: { count: number; sumAbs: number; sumLn: number } | null;
  repeats: RepeatRun[] | null;
}

const BLOCK_STATE_BYTES = 32;
const WADA_STATE_BYTES = 48;

/** Integrity kernels fed chunk by chunk inside one arena session (float samples of at most `maxChunk` per push). */
export class IntegrityStream {
  private readonly input: number;
  private readonly hasLevels: boolean;
  private readonly blockState: number;
  private readonly blockOut: number;
  private levels: Float32Array;
  private levelCount = 0;
  private readonly searches: Array<{ state: number; runs: number; edges: number; found: ZeroRunList }>;
  private readonly wadaState: number | null;
  private readonly wadaOut: number;
  private readonly repeatState: number | null = null;
  private readonly repeatOut: number = 0;
  private readonly found: RepeatRun[] = [];

  constructor(
    private readonly arena: Arena,
    private readonly plan: IntegrityStreamPlan,
    private readonly maxChunk: number,
  ) {
    const k = arena.k;
    this.input = arena.allocF32(maxChunk);
    this.hasLevels = plan.levels !== false;
    if (this.hasLevels) {
      this.blockState = arena.alloc(BLOCK_STATE_BYTES);
      this.blockOut = arena.allocF32(Math.floor(maxChunk / plan.blockLength) + 2);
      checkStatus(k.integrityBlockLevelsInit(this.blockState, plan.blockLength), "integrityBlockLevelsInit");
    } else {
      this.blockState = this.blockOut = 0;
    }
    const expected = this.hasLevels && plan.blockLength > 0 && plan.expectedLength !== undefined && plan.expectedLength > 0 ? Math.ceil(plan.expectedLength / plan.blockLength) : 0;
    this.levels = new Float32Array(expected || 1024);
    this.searches = plan.zeroRuns.map(({ minRun, edgeLength }) => {
      const state = arena.alloc(checkStatus(k.integrityZeroRunsStateBytes(minRun, edgeLength), "integrityZeroRunsStateBytes"));
      // Room for the runs of one push plus those still waiting for their level after.
      const room = Math.floor(maxChunk / (minRun + 1)) + 2 + Math.floor(edgeLength / (minRun + 1)) + 2;
      const runs = arena.allocI32(2 * room);
      const edges = arena.allocF32(2 * room);
      checkStatus(k.integrityZeroRunsInit(state, minRun, edgeLength, 0x7fffffff), "integrityZeroRunsInit");
      return { state, runs, edges, found: new ZeroRunList() };
    });
    this.wadaOut = arena.allocF64(3);
    if (plan.wadaRanges) {
      const ranges = arena.allocI32(Math.max(2, 2 * plan.wadaRanges.length));
      const view = arena.i32(ranges, 2 * plan.wadaRanges.length);
      plan.wadaRanges.forEach(([s, e], i) => {
        view[2 * i] = s;
        view[2 * i + 1] = e;
      });
      this.wadaState = arena.alloc(WADA_STATE_BYTES);
      checkStatus(k.integrityWadaInit(this.wadaState, ranges, plan.wadaRanges.length), "integrityWadaInit");
    } else {
      this.wadaState = null;
    }
    const r = plan.repeats;
    if (r) {
      this.repeatState = arena.alloc(checkStatus(k.integrityRepeatStateBytes(r.window, r.maxLag, r.blockLength, maxChunk), "integrityRepeatStateBytes"));
      const table = arena.alloc(k.integrityRepeatTableSize(r.tableBits));
      this.repeatOut = arena.allocI32(3 * (Math.floor(maxChunk / Math.max(1, Math.floor(r.minLag * r.minRunFraction))) + 4));
      checkStatus(
        k.integrityRepeatInit(this.repeatState, maxChunk, r.window, r.scale, r.gate, r.minLag, r.maxLag, r.blockLength, r.matchRatio, r.minRunFraction, table, r.tableBits, 0x7fffffff),
        "integrityRepeatInit",
      );
    }
  }

  private collectRepeats(count: number): void {
    const v = this.arena.i32(this.repeatOut, 3 * count);
    for (let i = 0; i < count; i++) this.found.push({ start: v[3 * i], lag: v[3 * i + 1], run: v[3 * i + 2] });
  }

  /** The next samples of the signal (any length; pushed in pieces of at most maxChunk). */
  push(samples: Float32Array): void {
    for (let at = 0; at < samples.length; at += this.maxChunk) this.pushPiece(samples.subarray(at, Math.min(samples.length, at + this.maxChunk)));
  }

  /** The next `n` samples of the signal, already in the session's arena at `ptr` (read in place, in pieces of at most maxChunk). */
  pushAt(ptr: number, n: number): void {
    for (let at = 0; at < n; at += this.maxChunk) this.run(ptr + 4 * at, Math.min(n - at, this.maxChunk));
  }

  private pushPiece(piece: Float32Array): void {
    this.arena.copyPcmTo(this.input, piece);
    this.run(this.input, piece.length);
  }

  /** Every kernel over `n` ≤ maxChunk samples at `input` (the kernels keep what they need of them in their state). */
  private run(input: number, n: number): void {
    const k = this.arena.k;
    if (this.hasLevels) this.keepLevels(checkStatus(k.integrityBlockLevelsPush(this.blockState, input, n, this.blockOut), "integrityBlockLevelsPush"));
    for (const s of this.searches) {
      checkStatus(k.integrityZeroRunsPush(s.state, input, n, s.runs, s.edges), "integrityZeroRunsPush");
      this.drain(s);
    }
    if (this.wadaState !== null) checkStatus(k.integrityWadaPush(this.wadaState, input, n), "integrityWadaPush");
    if (this.repeatState !== null) this.collectRepeats(checkStatus(k.integrityRepeatPush(this.repeatState, input, n, this.repeatOut), "integrityRepeatPush"));
  }

  /** Keep the `count` levels just written to blockOut (the array doubles when the length was not known, or was exceeded). */
  private keepLevels(count: number): void {
    if (count === 0) return;
    if (this.levelCount + count > this.levels.length) {
      const grown = new Float32Array(Math.max(2 * this.levels.length, this.levelCount + count));
      grown.set(this.levels.subarray(0, this.levelCount));
      this.levels = grown;
    }
    this.levels.set(this.arena.f32(this.blockOut, count), this.levelCount);
    this.levelCount += count;
  }

  private drain(s: { state: number; runs: number; edges: number; found: ZeroRunList }, ready = this.arena.k.integrityZeroRunsReady(s.state)): void {
    const r = this.arena.i32(s.runs, 2 * ready);
    const e = this.arena.f32(s.edges, 2 * ready);
    for (let i = 0; i < ready; i++) s.found.push(r[2 * i], r[2 * i + 1], e[2 * i], e[2 * i + 1]);
    checkStatus(this.arena.k.integrityZeroRunsDrain(s.state, s.runs, s.edges, ready), "integrityZeroRunsDrain");
  }

  /** Ends the signal: the last partial block, runs reaching the end, the sums. */
  finish(): IntegrityStreamResult {
    const k = this.arena.k;
    if (this.hasLevels && k.integrityBlockLevelsFinish(this.blockState, this.blockOut) === 1) this.keepLevels(1);
    for (const s of this.searches) this.drain(s, checkStatus(k.integrityZeroRunsFinish(s.state, s.runs, s.edges), "integrityZeroRunsFinish"));
    let wadaSums: IntegrityStreamResult["wadaSums"] = null;
    if (this.wadaState !== null) {
      k.integrityWadaFinish(this.wadaState, this.wadaOut);
      const v = this.arena.f64(this.wadaOut, 3);
      wadaSums = { count: v[0], sumAbs: v[1], sumLn: v[2] };
    }
    if (this.repeatState !== null) this.collectRepeats(checkStatus(k.integrityRepeatFinish(this.repeatState, this.repeatOut), "integrityRepeatFinish"));
    const blockLevels = this.levelCount === this.levels.length ? this.levels : this.levels.slice(0, this.levelCount);
    this.levels = new Float32Array(0);
    return { blockLevels, zeroRuns: this.searches.map((s) => s.found), wadaSums, repeats: this.repeatState === null ? null : this.found };
  }
}
