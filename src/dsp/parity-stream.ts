// Deepeval's parity set over a PcmSource read chunk by chunk: the same ParityFrames as ClipKernels.parityFrames() on the whole clip, bit for bit, in memory bounded by compact per-frame summaries (voice-metrics.md §2.3, §3).
//
// Each chunk is copied into one fixed region of the arena, mixed to deepeval's truncating int16 mono
// there (downmixTruncatingI16, as for a whole clip) and pushed to the stream kernels
// (assembly/kernels/parity-stream.ts), which carry partial frames between pushes. What stays is one
// f64 RMS per 20 ms frame, one f64 pitch per 40 ms frame and one start + hash per loud 250 ms window
// (about 2.3 MB per hour); the order statistics of §3.5 are taken over the frame RMS at the end, by
// the same kernel as for a whole clip. Windows whose hash is seen more than twice are confirmed
// sample by sample (§3.7 step 3) in a second reading of the source, a bounded number at a time.
import type { PcmChunk, PcmSource } from "../audio/pcm-source.js";
import { checkStatus, expectResult } from "./kernel-error.js";
import { checkSampleRate, FRAME_SUMMARY, FRAME_TOTALS, parityWidths, pitchSummary, readFrameSummary, readStreamCounts, type ParityFrames } from "./parity.js";
import { PyMoments } from "./pynum.js";

/** A 20 ms frame is silent below this RMS (int16 units, §3.1); voiced at or above it. */
const SILENCE_RMS = 300.0;
/** Up to this many frames (about 11 minutes) the order statistics sort a copy; beyond, radix selection in place. */
const SMALL_SELECTION = 32768;
import { withArena, type Arena } from "./wasm.js";

/** Frames read from a source per chunk (larger chunks are pushed in pieces of this size). */
export const PARITY_STREAM_CHUNK_FRAMES = 65536;

/** Options of measureParityStream. */
export interface ParityStreamOptions {
  /**
   * Bytes of 250 ms window copies one loop-confirming reading of the source may keep (one window per
   * group of windows with the same hash); more groups take more readings. At least one window is kept.
   * @defaultValue 8 MiB
   */
  loopConfirmBytes?: number;
}

const DEFAULT_LOOP_CONFIRM_BYTES = 8 << 20;

/**
 * Deepeval's parity measurements (voice-metrics.md §3) of a recording read from `source` chunk by
 * chunk: equal, field for field and bit for bit, to `ClipKernels.parityFrames()` over the whole
 * decoded clip (deepeval's truncating int16 mono mix when there are several channels), at any chunk
 * size. Memory holds one chunk and the per-frame summaries (an f64 per 20 ms frame, an f64 per 40 ms
 * pitch frame, a start and a hash per loud 250 ms window), not the recording. The source is read
 * once, and a second time only when some 250 ms window's hash is seen more than twice, to confirm
 * those windows sample by sample.
 *
 * @throws RangeError for a sample rate that is not an integer from 1 to 2^31 − 1, a bad channel
 *   count or a malformed chunk; KernelError past 2^31 − 1 samples; Error when a second reading of
 *   the source ends early.
 */
export function measureParityStream(source: PcmSource, options: ParityStreamOptions = {}): ParityFrames {
  const { sampleRate, channels } = source;
  checkSampleRate(sampleRate);
  if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`measureParityStream: source channels must be an integer ≥ 1, got ${channels}`);
  const loopConfirmBytes = options.loopConfirmBytes ?? DEFAULT_LOOP_CONFIRM_BYTES;
  if (!(loopConfirmBytes >= 0)) throw new RangeError(`measureParityStream: loopConfirmBytes must be a number ≥ 0, got ${loopConfirmBytes}`);
  return withArena((arena) => measureWith(arena, source, loopConfirmBytes));
}

function measureWith(arena: Arena, source: PcmSource, loopConfirmBytes: number): ParityFrames {
  const k = arena.k;
  const { sampleRate } = source;
  const widths = parityWidths(sampleRate);
  const reader = new MonoReader(arena, source);
  const m = PARITY_STREAM_CHUNK_FRAMES;
  const state = arena.alloc(checkStatus(k.parityStreamStateBytes(sampleRate), "parityStreamStateBytes"));
  const capacity = (w: number) => Math.floor((w - 1 + m) / w) + 1;
  const outRms = arena.allocF64(capacity(widths.frame));
  const outPitch = arena.allocF64(capacity(widths.pitchFrame));
  const outStart = arena.allocI32(capacity(widths.loopWindow));
  const outHash = arena.alloc(8 * capacity(widths.loopWindow));
  const totalsPtr = arena.alloc(FRAME_TOTALS.bytes);
  // Exactly sized when the source knows its length, else grown as needed.
  const known = source.frames !== null && Number.isInteger(source.frames) && source.frames >= 0 ? source.frames : null;
  const expected = (w: number) => (known === null ? 1024 : k.frameCount(Math.min(known, 0x7fffffff), w));
  const frameRms = new GrowingLog(Float64Array, expected(widths.frame));
  const pitches = new PyMoments();
  let pitchFrames = 0;
  const addPitches = (count: number) => {
    const values = arena.f64(outPitch, count);
    for (let i = 0; i < count; i++) if (values[i] > 0) pitches.add(values[i]);
    pitchFrames += count;
  };
  const starts = new GrowingLog(Int32Array, 256);
  const hashes = new GrowingLog(BigInt64Array, 256);
  checkStatus(k.parityStreamInit(state, sampleRate), "parityStreamInit");

  for (const n of reader.read()) {
    checkStatus(k.parityStreamPush(state, reader.mono, n, outRms, outPitch, outStart, outHash), "parityStreamPush");
    const out = readStreamCounts(arena, state);
    frameRms.append(arena.f64(outRms, out.frames));
    addPitches(out.pitches);
    starts.append(arena.i32(outStart, out.windows));
    hashes.append(arena.i64(outHash, out.windows));
  }
  checkStatus(k.parityStreamFinish(state, outRms, outPitch, totalsPtr), "parityStreamFinish");
  const last = readStreamCounts(arena, state);
  frameRms.append(arena.f64(outRms, last.frames));
  addPitches(last.pitches);
  const n = last.samples;
  expectResult(frameRms.length, k.frameCount(n, widths.frame), "parityStreamPush");
  expectResult(pitchFrames, k.frameCount(n, widths.pitchFrame), "parityStreamPush");
  const totals = arena.i32(totalsPtr, FRAME_TOTALS.bytes >> 2);
  const rms = arena.f64(totalsPtr + FRAME_TOTALS.rms, 1)[0];
  const clippedCount = totals[FRAME_TOTALS.clipped >> 2];
  const zeroCrossings = totals[FRAME_TOTALS.crossings >> 2];
  const startRms = k.parityStreamEdgeRms(state, 0);
  const endRms = k.parityStreamEdgeRms(state, 1);

  // §3.3–3.5: the counts were kept frame by frame; the order statistics are selected from the values.
  const values = frameRms.view();
  const summaryPtr = arena.alloc(FRAME_SUMMARY.bytes);
  checkStatus(k.parityStreamSummary(state, 0, 0, summaryPtr), "parityStreamSummary");
  const counts = readFrameSummary(arena, summaryPtr);
  const speechRms = counts.voiced > 0 ? selectRms(values, "voiced", Math.trunc(0.75 * (counts.voiced - 1))) : 0.0;
  const noiseRms = counts.quiet > 0 ? selectRms(values, "quiet", Math.trunc(0.25 * (counts.quiet - 1))) : 0.0;

  const loopEvents = countLoopEvents(arena, reader, widths.loopWindow, starts.view(), hashes.view(), loopConfirmBytes);
  return {
    sampleCount: n,
    sampleRate,
    rms,
    clippedCount,
    zeroCrossings,
    frameCount: frameRms.length,
    silentFrameCount: counts.silent,
    longestSilentRun: counts.longest,
    dropoutEvents: counts.dropouts,
    voicedFrameCount: counts.voiced,
    quietFrameCount: counts.quiet,
    speechRms,
    noiseRms,
    pitchFrameCount: pitchFrames,
    ...pitchSummary(pitches),
    loopEvents,
    startRms,
    endRms,
  };
}

/**
 * sorted(values in the class)[k] of the frame RMS values: "voiced" are RMS ≥ 300, "quiet" 0 < RMS < 300
 * (§3.5). Exact either way: a sorted copy of the class for short clips; for long ones, without copying
 * the values, a radix selection on their IEEE bit patterns, which for non-negative doubles order as
 * the numbers do (four passes of 16 bits, high word first).
 */
export function selectRms(values: Float64Array, kind: "voiced" | "quiet", k: number): number {
  const voiced = kind === "voiced";
  if (values.length <= SMALL_SELECTION) {
    // Few values (a clip of minutes): a sorted copy is cheaper than the radix passes.
    const chosen = new Float64Array(values.length);
    let count = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (voiced ? v >= SILENCE_RMS : v > 0 && v < SILENCE_RMS) chosen[count++] = v;
    }
    return chosen.subarray(0, count).sort()[k];
  }
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * values.length);
  const counts = new Uint32Array(65536);
  let hiPrefix = 0;
  let loPrefix = 0;
  let rank = k;
  // Pass p picks 16 bits: (hi >>> 16), (hi & 0xffff), (lo >>> 16), (lo & 0xffff), among values whose earlier bits match.
  for (let pass = 0; pass < 4; pass++) {
    counts.fill(0);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (voiced ? !(v >= SILENCE_RMS) : !(v > 0 && v < SILENCE_RMS)) continue;
      const lo = words[2 * i];
      const hi = words[2 * i + 1];
      if (pass === 1 && hi >>> 16 !== hiPrefix >>> 16) continue;
      if (pass >= 2 && hi !== hiPrefix) continue;
      if (pass === 3 && lo >>> 16 !== loPrefix >>> 16) continue;
      counts[pass === 0 ? hi >>> 16 : pass === 1 ? hi & 0xffff : pass === 2 ? lo >>> 16 : lo & 0xffff]++;
    }
    let bin = 0;
    while (rank >= counts[bin]) rank -= counts[bin++];
    if (pass === 0) hiPrefix = bin << 16;
    else if (pass === 1) hiPrefix = (hiPrefix | bin) >>> 0;
    else if (pass === 2) loPrefix = bin << 16;
    else loPrefix = (loPrefix | bin) >>> 0;
  }
  const bits = new Uint32Array([loPrefix, hiPrefix]);
  return new Float64Array(bits.buffer)[0];
}

/**
 * loop_events of §3.7 from the loud windows' starts and hashes: 0 unless some hash is seen more than
 * twice; then those windows are compared sample by sample with the first window of their hash group
 * in further readings of the source, so only byte-identical windows count together.
 */
function countLoopEvents(arena: Arena, reader: MonoReader, width: number, starts: Int32Array, hashes: BigInt64Array, budgetBytes: number): number {
  const k = arena.k;
  // Hashes seen more than twice (sorted copy: equal hashes are neighbours).
  const sorted = hashes.slice().sort();
  const repeated = new Set<bigint>();
  for (let j = 2; j < sorted.length; j++) if (sorted[j] === sorted[j - 2]) repeated.add(sorted[j]);
  if (repeated.size === 0) return 0;
  // Window indices by hash, each group in window order (≥ 3 members).
  const byHash = new Map<bigint, number[]>();
  for (let j = 0; j < hashes.length; j++) {
    if (!repeated.has(hashes[j])) continue;
    const members = byHash.get(hashes[j]) ?? [];
    members.push(starts[j] / width);
    byHash.set(hashes[j], members);
  }
  const grouped = [...byHash.values()].reduce((sum, members) => sum + members.length, 0);
  let pending = [...byHash.values()];
  const slots = Math.max(1, Math.min(pending.length, Math.floor(budgetBytes / (2 * width))));
  const statePtr = arena.alloc(checkStatus(k.loopVerifyStateBytes(width), "loopVerifyStateBytes"));
  const checksPtr = arena.allocI32(4 * grouped);
  const slotsPtr = arena.allocI16(slots * width);
  let events = 0;
  while (pending.length > 0) {
    const batch = pending.slice(0, slots);
    pending = pending.slice(slots);
    // One check per member: the group's first window is kept in its slot, the others compared with it.
    const checks = batch.flatMap((members, slot) => members.map((window, i) => [window, slot, i === 0 ? 0 : 1]));
    checks.sort((a, b) => a[0] - b[0]);
    const table = arena.i32(checksPtr, 4 * checks.length);
    checks.forEach((c, i) => table.set([c[0], c[1], c[2], 0], 4 * i));
    checkStatus(k.loopVerifyInit(statePtr, width, checksPtr, checks.length, slotsPtr), "loopVerifyInit");
    let remaining = checks.length;
    for (const n of reader.read()) {
      remaining = checkStatus(k.loopVerifyPush(statePtr, reader.mono, n), "loopVerifyPush");
      if (remaining === 0) break;
    }
    if (remaining > 0) throw new Error(`measureParityStream: ${reader.name} ended early when read again to confirm loop windows (${remaining} window(s) not reached)`);
    const results = arena.i32(checksPtr, 4 * checks.length);
    const identical = new Set<number>();
    for (let i = 0; i < checks.length; i++) if (results[4 * i + 3] === 1) identical.add(results[4 * i]);
    for (const members of batch) {
      const same = 1 + members.slice(1).filter((w) => identical.has(w)).length;
      if (same > 2) events += same - 1;
      const rest = members.slice(1).filter((w) => !identical.has(w));
      if (rest.length > 2) pending.push(rest);
    }
  }
  return events;
}

/** Reads a source into one fixed arena region, chunk by chunk, and leaves deepeval's int16 mono mix of each piece at `mono`. */
class MonoReader {
  /** The mono samples of the piece just read. */
  readonly mono: number;
  private readonly input: number;
  private readonly channels: number;

  constructor(
    private readonly arena: Arena,
    private readonly source: PcmSource,
  ) {
    this.channels = source.channels;
    this.input = arena.allocI16(PARITY_STREAM_CHUNK_FRAMES * this.channels);
    this.mono = this.channels > 1 ? arena.allocI16(PARITY_STREAM_CHUNK_FRAMES) : this.input;
  }

  /** How errors name the source. */
  get name(): string {
    return `source (${this.source.format})`;
  }

  /** Reads the source from its first frame; yields the mono sample count of each piece (≤ PARITY_STREAM_CHUNK_FRAMES). */
  *read(): Generator<number> {
    const { channels } = this;
    let index = 0;
    for (const chunk of this.source.chunks(PARITY_STREAM_CHUNK_FRAMES)) {
      const frames = this.checkChunk(chunk, index++);
      for (let at = 0; at < frames; at += PARITY_STREAM_CHUNK_FRAMES) {
        const n = Math.min(PARITY_STREAM_CHUNK_FRAMES, frames - at);
        this.arena.copyPcmTo(this.input, chunk.samples.subarray(at * channels, (at + n) * channels));
        if (channels > 1) expectResult(this.arena.k.downmixTruncatingI16(this.input, channels, n, this.mono), n, "downmixTruncatingI16");
        yield n;
      }
    }
  }

  private checkChunk(chunk: PcmChunk, index: number): number {
    const { frames, samples } = chunk;
    if (!Number.isInteger(frames) || frames < 1) throw new RangeError(`${this.name}: chunk ${index} frames must be an integer ≥ 1, got ${frames}`);
    if (!(samples instanceof Int16Array) || samples.length < frames * this.channels) {
      throw new RangeError(`${this.name}: chunk ${index} samples must be an Int16Array of at least frames × channels = ${frames * this.channels} values`);
    }
    return frames;
  }
}

type GrowableArray = Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | BigInt64Array<ArrayBuffer>;
type AnyGrowable = Float64Array | Int32Array | BigInt64Array;

/** An append-only typed array that grows as needed (the compact per-frame summaries). */
class GrowingLog<T extends GrowableArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly make: new (length: number) => T,
    capacity: number,
  ) {
    this.data = new make(Math.max(16, capacity));
  }

  append(values: AnyGrowable): void {
    if (this.length + values.length > this.data.length) {
      const grown = new this.make(Math.max(Math.ceil(1.5 * this.data.length), this.length + values.length));
      (grown as GrowableArray).set(this.data as never);
      this.data = grown;
    }
    (this.data as GrowableArray).set(values as never, this.length);
    this.length += values.length;
  }

  /** The values so far (a view, valid until the next append). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  /** The values as the result keeps them: the buffer itself when it is (nearly) full, else an exact copy. */
  result(): T {
    if (this.length === this.data.length) return this.data;
    return (this.length * 8 >= this.data.length * 7 ? this.view() : this.view().slice()) as T;
  }
}
