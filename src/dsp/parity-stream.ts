// Deepeval's parity set over a PcmSource read chunk by chunk: the same ParityFrames as ClipKernels.parityFrames() on the whole clip, bit for bit, in memory bounded by compact per-frame summaries (voice-metrics.md §2.3, §3).
//
// Each chunk is copied into one fixed region of the arena, mixed to deepeval's truncating int16 mono
// there (downmixTruncatingI16, as for a whole clip) and pushed to the stream kernels
// (assembly/kernels/parity-stream.ts), which carry partial frames between pushes. What stays is one
// f64 RMS per 20 ms frame and one start + hash per loud 250 ms window, written by the kernel straight
// into arena regions sized once from the source's length (at most about 1.6 MB per hour); the voiced
// pitches are summed exactly as they come (PyMoments), so no pitch is kept. The order statistics of
// §3.5 are selected in place over the frame RMS at the end (frameOrderStatsInPlaceF64). Windows whose
// hash is seen more than twice are confirmed sample by sample (§3.7 step 3) in a second reading of
// the source, a bounded number at a time. Nothing is allocated per chunk on the JS heap but what the
// source's iterator makes.
import type { PcmChunk, PcmSource } from "../audio/pcm-source.js";
import { checkStatus, expectResult } from "./kernel-error.js";
import { checkSampleRate, FRAME_SUMMARY, FRAME_TOTALS, PARITY_STREAM, parityWidths, pitchSummary, readFrameSummary, type ParityFrames } from "./parity.js";
import { PyMoments } from "./pynum.js";
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
 * size. Memory holds one chunk and the per-frame summaries (an f64 per 20 ms frame, a start and a
 * hash per loud 250 ms window, the exact sums of the voiced pitches), not the recording. The source is read
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
  const state = arena.alloc(checkStatus(k.parityStreamStateBytes(sampleRate), "parityStreamStateBytes"));
  const pitchCapacity = Math.floor((widths.pitchFrame - 1 + PARITY_STREAM_CHUNK_FRAMES) / widths.pitchFrame) + 1;
  const outPitch = arena.allocF64(pitchCapacity);
  const totalsPtr = arena.alloc(FRAME_TOTALS.bytes);
  const orderPtr = arena.alloc(ORDER_STATS_BYTES);
  const summaryPtr = arena.alloc(FRAME_SUMMARY.bytes);
  // The kernel writes the frame RMS values and loud windows straight into arena logs, sized once for
  // the whole source when its length is known (one spare slot for the last partial frame).
  const known = source.frames !== null && Number.isInteger(source.frames) && source.frames >= 0 ? Math.min(source.frames, 0x7fffffff) : null;
  const frameRms = new ArenaLog(arena, 8, known === null ? 4096 : k.frameCount(known, widths.frame) + 1);
  const windows = known === null ? 256 : Math.floor(known / widths.loopWindow) + 1;
  const starts = new ArenaLog(arena, 4, windows);
  const hashes = new ArenaLog(arena, 8, windows);
  const pitches = new PyMoments();
  let pitchFrames = 0;
  const views = new ArenaViews(arena, state, outPitch, pitchCapacity);
  checkStatus(k.parityStreamInit(state, sampleRate), "parityStreamInit");

  for (const n of reader.read()) {
    // Exactly what this push completes: the samples carried in each partial frame or window, plus n.
    frameRms.reserve(Math.floor((views.counter(PARITY_STREAM.frameFill) + n) / widths.frame));
    const loud = Math.floor((views.counter(PARITY_STREAM.loopFill) + n) / widths.loopWindow);
    starts.reserve(loud);
    hashes.reserve(loud);
    checkStatus(k.parityStreamPush(state, reader.mono, n, frameRms.end(), outPitch, starts.end(), hashes.end()), "parityStreamPush");
    frameRms.length += views.counter(PARITY_STREAM.outFrames);
    starts.length += views.counter(PARITY_STREAM.outWindows);
    hashes.length += views.counter(PARITY_STREAM.outWindows);
    pitchFrames += addVoicedPitches(pitches, views.pitches(), views.counter(PARITY_STREAM.outPitches));
  }
  frameRms.reserve(1);
  checkStatus(k.parityStreamFinish(state, frameRms.end(), outPitch, totalsPtr), "parityStreamFinish");
  frameRms.length += views.counter(PARITY_STREAM.outFrames);
  pitchFrames += addVoicedPitches(pitches, views.pitches(), views.counter(PARITY_STREAM.outPitches));
  const n = views.counter(PARITY_STREAM.samples);
  expectResult(frameRms.length, k.frameCount(n, widths.frame), "parityStreamPush");
  expectResult(pitchFrames, k.frameCount(n, widths.pitchFrame), "parityStreamPush");
  const startRms = k.parityStreamEdgeRms(state, 0);
  const endRms = k.parityStreamEdgeRms(state, 1);

  // §3.3–3.5: the counts were kept frame by frame; the order statistics are selected from the values
  // in place (they are not needed afterwards).
  expectResult(k.frameOrderStatsInPlaceF64(frameRms.ptr, frameRms.length, orderPtr), frameRms.length, "frameOrderStatsInPlaceF64");
  checkStatus(k.parityStreamSummary(state, 0, 0, summaryPtr), "parityStreamSummary");
  const order = arena.f64(orderPtr, 2);
  const orderCounts = arena.i32(orderPtr + 16, 2);
  const counts = readFrameSummary(arena, summaryPtr);
  expectResult(orderCounts[0], counts.voiced, "frameOrderStatsInPlaceF64");
  expectResult(orderCounts[1], counts.quiet, "frameOrderStatsInPlaceF64");
  const totals = arena.i32(totalsPtr, FRAME_TOTALS.bytes >> 2);
  const result = {
    sampleCount: n,
    sampleRate,
    rms: arena.f64(totalsPtr + FRAME_TOTALS.rms, 1)[0],
    clippedCount: totals[FRAME_TOTALS.clipped >> 2],
    zeroCrossings: totals[FRAME_TOTALS.crossings >> 2],
    frameCount: frameRms.length,
    silentFrameCount: counts.silent,
    longestSilentRun: counts.longest,
    dropoutEvents: counts.dropouts,
    voicedFrameCount: counts.voiced,
    quietFrameCount: counts.quiet,
    speechRms: order[0],
    noiseRms: order[1],
    pitchFrameCount: pitchFrames,
    ...pitchSummary(pitches),
    loopEvents: 0,
    startRms,
    endRms,
  };
  result.loopEvents = countLoopEvents(arena, reader, widths.loopWindow, starts, hashes, loopConfirmBytes);
  return result;
}

/** Bytes of frameOrderStatsInPlaceF64's result: speech and noise (f64), then the voiced and quiet counts (i32). */
const ORDER_STATS_BYTES = 24;

/** Adds the pitches > 0 among the first `count` of `values` to `moments`; returns `count`. */
function addVoicedPitches(moments: PyMoments, values: Float64Array, count: number): number {
  for (let i = 0; i < count; i++) if (values[i] > 0) moments.add(values[i]);
  return count;
}

/** Views of the stream state's counters and of the pitch output, made again only when WebAssembly memory has grown (no allocation per push). */
class ArenaViews {
  private state: Int32Array;
  private pitch: Float64Array;

  constructor(
    private readonly arena: Arena,
    private readonly statePtr: number,
    private readonly pitchPtr: number,
    private readonly pitchLength: number,
  ) {
    this.state = arena.i32(statePtr, 16);
    this.pitch = arena.f64(pitchPtr, pitchLength);
  }

  /** The i32 counter at byte `offset` of the state (PARITY_STREAM). */
  counter(offset: number): number {
    if (this.state.length === 0) this.state = this.arena.i32(this.statePtr, 16);
    return this.state[offset >> 2];
  }

  /** The pitch output region. */
  pitches(): Float64Array {
    if (this.pitch.length === 0) this.pitch = this.arena.f64(this.pitchPtr, this.pitchLength);
    return this.pitch;
  }
}

/**
 * loop_events of §3.7 from the loud windows' starts and hashes: 0 unless some hash is seen more than
 * twice; then those windows are compared sample by sample with the first window of their hash group
 * in further readings of the source, so only byte-identical windows count together.
 */
function countLoopEvents(arena: Arena, reader: MonoReader, width: number, startLog: ArenaLog, hashLog: ArenaLog, budgetBytes: number): number {
  const k = arena.k;
  const count = hashLog.length;
  // Hashes seen more than twice (sorted copy: equal hashes are neighbours), compared as 32-bit halves (no BigInt per window).
  const sorted = arena.i64(hashLog.ptr, count).slice().sort();
  const halves = new Int32Array(sorted.buffer, sorted.byteOffset, 2 * count);
  const repeated = new Set<bigint>();
  for (let j = 2; j < count; j++) {
    if (halves[2 * j] === halves[2 * j - 4] && halves[2 * j + 1] === halves[2 * j - 3]) repeated.add(sorted[j]);
  }
  if (repeated.size === 0) return 0;
  // Window indices by hash, each group in window order (≥ 3 members); views made before the allocations below.
  const starts = arena.i32(startLog.ptr, count);
  const hashes = arena.i64(hashLog.ptr, count);
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
        const samples = chunk.samples;
        this.arena.copyPcmTo(this.input, at === 0 && n * channels === samples.length ? samples : samples.subarray(at * channels, (at + n) * channels));
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

/**
 * An append-only region of the arena the kernel writes into (the compact per-frame summaries): sized
 * once when the source's length is known, else moved to a region twice as large when a push could
 * overflow it (the old region stays unused until the session ends).
 */
class ArenaLog {
  /** Where the values start (moves when the log grows). */
  ptr: number;
  /** Values written so far. */
  length = 0;
  private capacity: number;

  constructor(
    private readonly arena: Arena,
    private readonly bytesPer: number,
    capacity: number,
  ) {
    this.capacity = Math.max(16, capacity);
    this.ptr = arena.alloc(this.capacity * bytesPer);
  }

  /** Makes room for `more` values after the current ones. */
  reserve(more: number): void {
    if (this.length + more <= this.capacity) return;
    const capacity = Math.max(2 * this.capacity, this.length + more);
    const ptr = this.arena.alloc(capacity * this.bytesPer);
    this.arena.u8(0, this.arena.k.memory.buffer.byteLength).copyWithin(ptr, this.ptr, this.ptr + this.length * this.bytesPer);
    this.ptr = ptr;
    this.capacity = capacity;
  }

  /** Where the next value goes. */
  end(): number {
    return this.ptr + this.length * this.bytesPer;
  }
}
