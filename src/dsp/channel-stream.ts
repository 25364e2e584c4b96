// The standards-set kernels fed a recording chunk by chunk (issue 11): each measure keeps its state in the arena, and its results equal the whole-clip kernels' exactly.
//
// A PcmSource is read in bounded chunks into one arena session. Every stream here holds a bounded
// buffer and carries the kernel state between chunks; what grows with the recording is only the
// compact per-frame summaries (activity levels: one f32 per 10 ms; intensity: one f32 per 16 ms),
// kept on the JS side. Kernels whose results depend on where blocks split (the IIR filters run two
// halves of a block in parallel) are fed the very blocks the whole-clip kernel uses: blocks start at
// multiples of the kernel's block length from the first sample, and a block is filtered only once
// it is known not to be the last one. Frame-based kernels (intensity, YIN, spectrum) read a sliding
// buffer that holds every frame whole, so their arithmetic is the same as on the whole signal.
import type { PcmSource } from "../audio/pcm-source.js";
import type { SpeechRunOptions } from "./channel-kernels.js";
import { checkStatus, expectResult } from "./kernel-error.js";
import { BAD_ARGUMENT } from "./kernel-status.js";
import { withArena, type Arena } from "./wasm.js";

/** Frames read from a source per chunk (the source may give fewer). */
export const STREAM_CHUNK_FRAMES = 1 << 16;

/**
 * A growable list of f32 (F32List) or f64 (F64List): one array of the expected length when the
 * caller knows it (then the list is handed over without a copy), else fixed blocks (no doubling:
 * at most one block of slack, nothing left to the collector as it grows; the exact copy is made
 * once, at the end).
 */
class FloatList<A extends Float32Array | Float64Array> {
  private exact: A | null;
  private readonly blocks: A[] = [];
  length = 0;
  /** `storage`, when it holds exactly `expected` values, is used as the exact array (a caller's spent array reused, not a new one). */
  constructor(private readonly make: (n: number) => A, private readonly block: number, expected: number, storage?: A) {
    this.exact = expected > 0 ? (storage && storage.length === expected ? storage : make(expected)) : null;
  }
  pushAll(values: A): void {
    this.pushRange(values, 0, values.length);
  }
  /** Add values[from, from + count) (e.g. a kernel's output read through a whole-memory view, without a view of its own). */
  pushRange(values: A, from: number, count: number): void {
    const exact = this.exact;
    if (exact && this.length + count <= exact.length) {
      for (let i = 0, at = this.length; i < count; i++) exact[at + i] = values[from + i];
      this.length += count;
      return;
    }
    if (from !== 0 || count !== values.length) values = values.subarray(from, from + count) as A;
    if (this.exact) {
      // More than expected: go on in blocks.
      const had = this.exact.subarray(0, this.length) as A;
      this.exact = null;
      this.length = 0;
      this.pushBlocks(had);
    }
    this.pushBlocks(values);
  }
  private pushBlocks(values: A): void {
    const size = this.block;
    for (let off = 0; off < values.length;) {
      const within = this.length % size;
      const take = Math.min(values.length - off, size - within);
      this.current(within).set(values.subarray(off, off + take), within);
      off += take;
      this.length += take;
    }
  }
  /** Add one value. */
  push(value: number): void {
    if (this.exact && this.length < this.exact.length) {
      this.exact[this.length++] = value;
      return;
    }
    if (this.exact) {
      const one = this.make(1);
      one[0] = value;
      this.pushAll(one);
    } else {
      const within = this.length % this.block;
      this.current(within)[within] = value;
      this.length++;
    }
  }
  /** The block the next value goes into (at `within` of it): a block kept from before reset(), or a new one. */
  private current(within: number): A {
    const b = (this.length - within) / this.block;
    if (b === this.blocks.length) this.blocks.push(this.make(this.block));
    return this.blocks[b];
  }
  /** Empty the list, keeping its blocks for the values pushed next (a list of the same kind filled again, e.g. for the next signal). */
  reset(): void {
    this.length = 0;
    if (this.exact) this.exact = null;
  }
  /** Views of the values so far, in order (exactly `length` values in all), without copying them; valid until the next push. */
  parts(): A[] {
    if (this.exact) return [this.exact.subarray(0, this.length) as A];
    const size = this.block;
    return this.blocks.slice(0, Math.ceil(this.length / size)).map((b, i) => b.subarray(0, Math.min(size, this.length - i * size)) as A);
  }
  /** The values so far (exactly `length` values); the list is emptied, its storage handed over or freed as it is copied. */
  toArray(): A {
    if (this.exact) {
      const e = this.exact, n = this.length;
      this.exact = null;
      this.length = 0;
      return n === e.length ? e : (e.slice(0, n) as A);
    }
    const out = this.make(this.length);
    const size = this.block;
    for (let b = 0; b < this.blocks.length; b++) {
      if (b * size < this.length) out.set(this.blocks[b].subarray(0, Math.min(size, this.length - b * size)), b * size);
      this.blocks[b] = this.make(0);
    }
    this.blocks.length = 0;
    this.length = 0;
    return out;
  }
}

/** A growable list of f32 (see FloatList): blocks of 2¹⁶ values unless `block` is given. */
export class F32List extends FloatList<Float32Array> {
  constructor(expected = 0, storage?: Float32Array, block = 1 << 16) {
    super((n) => new Float32Array(n), block, expected, storage);
  }
}

/** A growable list of f64 in blocks of `block` values (see FloatList). */
export class F64List extends FloatList<Float64Array> {
  constructor(block = 1 << 13) {
    super((n) => new Float64Array(n), block, 0);
  }
}

/** Copy `n` f32 from `from` to `to` in WebAssembly memory (regions may overlap; the dsp layer's move, without a view per call). */
export function moveInMemory(arena: Arena, to: number, from: number, n: number): void {
  moveF32(arena, to, from, n);
}

/** Copy `n` f32 from `from` to `to` inside the arena (regions may overlap). */
function moveF32(arena: Arena, to: number, from: number, n: number): void {
  // The arena's cached view of the whole memory (a view per move left ~10⁶ objects per reading of a long recording to the collector).
  if (n > 0 && to !== from) arena.memF32().copyWithin(to >>> 2, from >>> 2, (from >>> 2) + n);
}

/** One chunk of a source as planar f32 channels (and the per-sample mean) in the arena (valid during the reader's call only). */
export interface PlanarChunk {
  /** Frames in this chunk. */
  frames: number;
  /** Arena pointer of channel `c` (f32 × frames), for the channels asked for. */
  channel(c: number): number;
  /** Arena pointer of the per-sample mean of the channels (f32 × frames); the only channel for mono. */
  mean(): number;
}

/**
 * Read `source` from its first frame as planar f32 chunks of at most `maxFrames` frames in the
 * arena: the exact float samples where the source has them, else int16 / 32768 (as decodeAudio and
 * ClipKernels.planar make them). `wanted` lists the channels needed (all when the mean is needed).
 * The arena regions, and the chunk object handed to `use`, are made once and reused for every chunk
 * (nothing is allocated per chunk here). Returns the frames read.
 */
export function readPlanarChunks(arena: Arena, source: PcmSource, wanted: readonly number[], needMean: boolean,
  use: (chunk: PlanarChunk) => void, maxFrames = STREAM_CHUNK_FRAMES): number {
  const channels = source.channels;
  const k = arena.k;
  const all = needMean && channels > 1;
  const list = all ? Array.from({ length: channels }, (_, c) => c) : [...wanted];
  const interleaved = arena.allocI16(maxFrames * channels);
  const planar = arena.allocF32(maxFrames * Math.max(1, list.length));
  const mean = all ? arena.allocF32(maxFrames) : 0;
  // Slot of each channel read (−1: not read), by channel index.
  const slot = new Int32Array(channels).fill(-1);
  list.forEach((c, i) => { if (Number.isInteger(c) && c >= 0 && c < channels) slot[c] = i; });
  const view = new PlanarView(planar, all ? mean : -1, slot, list[0]);
  let total = 0;
  for (const chunk of source.chunks(maxFrames)) {
    const frames = chunk.frames;
    if (!Number.isInteger(frames) || frames < 1) throw new RangeError(`a chunk of the source holds ${frames} frames, expected a positive integer`);
    if (chunk.samples.length < frames * channels) throw new RangeError(`a chunk of the source holds ${chunk.samples.length} samples, expected ${frames * channels}`);
    for (let at = 0; at < frames; at += maxFrames) {
      const n = Math.min(maxFrames, frames - at);
      if (chunk.floatChannels) {
        for (let i = 0; i < list.length; i++) {
          const c = list[i];
          const exact = chunk.floatChannels[c];
          if (!exact || exact.length < at + n) throw new RangeError(`float channel ${c} of a chunk holds ${exact?.length ?? 0} samples, expected ${frames}`);
          arena.copyPcmTo(planar + 4 * i * n, at === 0 && n === exact.length ? exact : exact.subarray(at, at + n));
        }
      } else {
        const samples = chunk.samples;
        arena.copyPcmTo(interleaved, at === 0 && n * channels === samples.length ? samples : samples.subarray(at * channels, (at + n) * channels));
        for (let i = 0; i < list.length; i++) expectResult(k.deinterleaveF32(interleaved, channels, list[i], 0, n, planar + 4 * i * n), n, "deinterleaveF32");
      }
      if (all) expectResult(k.mixdownMeanF32(planar, channels, n, mean), n, "mixdownMeanF32");
      view.frames = n;
      use(view);
      total += n;
    }
  }
  return total;
}

/** The chunk readPlanarChunks hands out: one object for a whole reading, its frame count set per chunk. */
class PlanarView implements PlanarChunk {
  frames = 0;
  constructor(private readonly planar: number, private readonly meanAt: number, private readonly slot: Int32Array, private readonly first: number) {}
  channel(c: number): number {
    const i = this.slot[c];
    if (!(i >= 0)) throw new RangeError(`channel ${c} was not read`);
    return this.planar + 4 * i * this.frames;
  }
  mean(): number {
    return this.meanAt >= 0 ? this.meanAt : this.channel(this.first);
  }
}

/**
 * Activity levels (20 ms / 10 ms band-passed frame levels, acoustics.md §2.3) of a signal fed in
 * chunks: equal to ChannelKernels.activityLevels on the whole signal. Holds one filter block plus
 * one 10 ms sub-block of samples; the levels (one f32 per 10 ms) are kept on the JS side.
 */
export class ActivityStream {
  private readonly state: number;
  private readonly buffer: number;
  private readonly out: number;
  private readonly block: number;
  private readonly capacity: number;
  private buffered = 0;
  private consumed = 0;
  private pushed = 0;
  private readonly levels: F32List;

  /**
   * `y` is a shared region of activityStreamBlockLength() f64 (16-byte aligned) the filter writes into;
   * `expectedFrames`, when the signal's length is known, the samples to come (the levels are then kept in one array of the exact length:
   * `storage` when it has that length, e.g. the spent levels of another signal of the same recording).
   */
  constructor(private readonly arena: Arena, readonly sampleRate: number, private readonly y: number, expectedFrames = 0, storage?: Float32Array) {
    const k = arena.k;
    this.levels = new F32List(expectedFrames > 0 ? k.activityFrameCount(expectedFrames, sampleRate) : 0, storage);
    this.state = arena.alloc(k.activityStreamStateSize());
    checkStatus(k.activityStreamInit(this.state, sampleRate), "activityStreamInit");
    this.block = k.activityStreamBlockLength();
    // A block is filtered once a whole 10 ms sub-block (and one sample) follows it: then it is not
    // the last block, which ends where the last complete sub-block ends.
    this.capacity = this.block + Math.floor(sampleRate / 100) + 2;
    this.buffer = arena.allocF32(this.capacity);
    this.out = arena.allocF32(Math.ceil(this.block / Math.max(1, Math.floor(sampleRate / 100))) + 4);
  }

  /** Bytes of f64 the shared `y` region needs. */
  static yBytes(arena: Arena): number {
    return 8 * arena.k.activityStreamBlockLength();
  }

  /** Add `n` f32 samples at arena pointer `ptr`. */
  push(ptr: number, n: number): void {
    for (let off = 0; off < n;) {
      const take = Math.min(n - off, this.capacity - this.buffered);
      moveF32(this.arena, this.buffer + 4 * this.buffered, ptr + 4 * off, take);
      this.buffered += take;
      off += take;
      if (this.buffered === this.capacity) this.flush(this.block);
    }
    this.pushed += n;
  }

  private flush(length: number): void {
    const k = this.arena.k;
    const frames = checkStatus(k.activityStreamBlock(this.state, this.buffer, length, this.y, this.out), "activityStreamBlock");
    this.levels.pushRange(this.arena.memF32(), this.out >>> 2, frames);
    moveF32(this.arena, this.buffer, this.buffer + 4 * length, this.buffered - length);
    this.buffered -= length;
    this.consumed += length;
  }

  /** The frame levels of everything pushed (call once, after the last push). */
  finish(): Float32Array {
    const total = this.arena.k.activityStreamSampleCount(this.pushed, this.sampleRate);
    while (this.consumed < total) this.flush(Math.min(this.block, total - this.consumed));
    return this.levels.toArray();
  }
}

/**
 * Speech runs (frame pairs) of frame levels, from a session's arena: equal to runsOfLevelsAt on the
 * same levels. The levels are copied into the arena, then the peak percentile is selected in place
 * in `levels` (which this reorders: the caller's array is spent), so the arena holds the levels,
 * one noise-floor window and the runs — not a second copy of every level.
 */
export function speechRunsOfLevels(arena: Arena, levels: Float32Array, options: SpeechRunOptions): Int32Array {
  const k = arena.k;
  const n = levels.length;
  const o = options;
  if (n === 0) return new Int32Array(0);
  const at = arena.putF32(levels);
  const peak = percentileInPlaceF32(levels, o.peakPercentile);
  const scratch = arena.alloc(k.activitySpeechRunsGivenPeakScratchSize(n, o.noiseHalfWindowFrames));
  // A run ends after more than h frames at or below T_off, which the next onset cannot move back
  // over: first frames of runs are at least h + 2 apart, so at most ⌈n / (h + 2)⌉ runs fit.
  const h = Math.max(0, Math.floor(o.hangoverFrames));
  const most = Math.min(n, Math.ceil(n / (h + 2)) + 1);
  const out = arena.allocI32(2 * most);
  const runs = checkStatus(k.activitySpeechRunsGivenPeak(at, n, peak, o.noisePercentile, o.noiseHalfWindowFrames,
    o.enterAboveNoiseDb, o.enterBelowPeakDb, o.stayBelowEnterDb, o.hangoverFrames, scratch, out), "activitySpeechRunsGivenPeak");
  return arena.i32(out, 2 * runs).slice();
}

/**
 * The `k`-th smallest of `buffer` (its first `length` values), reordering it in place (Hoare
 * quickselect on f32, the activity kernel's own steps): afterwards everything after position k is ≥ the result.
 */
export function selectInPlaceF32(buffer: Float32Array, k: number, length = buffer.length): number {
  let lo = 0, hi = length - 1;
  while (lo < hi) {
    const pivot = buffer[(lo + hi) >> 1];
    let i = lo, j = hi;
    while (i <= j) {
      while (buffer[i] < pivot) i++;
      while (buffer[j] > pivot) j--;
      if (i <= j) {
        const t = buffer[i];
        buffer[i] = buffer[j];
        buffer[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return buffer[k];
}

/**
 * The linearly interpolated percentile `p` of the first `n` values of `buffer` (reordered in place): the very steps of the
 * activity kernel's selectPercentile (Hoare quickselect on f32, then the smallest value above
 * position k), so the result is the same f64.
 */
export function percentileInPlaceF32(buffer: Float32Array, p: number, n = buffer.length): number {
  const r = ((n - 1) * p) / 100;
  const k = Math.floor(r);
  selectInPlaceF32(buffer, k, n);
  const low = buffer[k];
  if (r === k) return low;
  let high = Infinity;
  for (let i = k + 1; i < n; i++) if (buffer[i] < high) high = buffer[i];
  return low + (r - k) * (high - low);
}

/** The activity kernel's noise-floor anchors: one per NOISE_FLOOR_STEP frames (1 s), the first at frame 0, each held for the frames nearest to it. */
const NOISE_FLOOR_STEP = 100;

/**
 * Speech runs (frame pairs) of frame levels, decided on the host on the levels where they are: equal
 * to runsOfLevelsAt (the activity kernel) on the same levels, step for step — the peak percentile
 * of all levels, the noise-floor percentile of a window around each anchor (selected in a
 * window-sized buffer with the kernel's quickselect), then hysteresis and hangover in f64. Nothing
 * is copied into WebAssembly memory and `levels` is not reordered (the peak's order statistics are
 * found by a radix selection on the f32 bits), so a long recording's levels are held once.
 */
export function speechRunsInPlace(levels: Float32Array, options: SpeechRunOptions): Int32Array {
  const n = levels.length;
  const o = options;
  if (n === 0) return new Int32Array(0);
  // The kernel's i32 parameters, converted as WebAssembly converts them.
  const halfWindow = o.noiseHalfWindowFrames | 0;
  const hangover = o.hangoverFrames | 0;
  if (halfWindow < 1) checkStatus(BAD_ARGUMENT, "activitySpeechRunsGivenPeak");
  const peakLimit = percentileOfF32(levels, o.peakPercentile) - o.enterBelowPeakDb;
  const { enterAboveNoiseDb, stayBelowEnterDb, noisePercentile } = o;
  const span = (2 * halfWindow) | 0;
  const windowLength = Math.min(n, span);
  const buffer = new Float32Array(windowLength);
  const anchors = (((n - 1) / NOISE_FLOOR_STEP) | 0) + 1;
  const noiseFloor = new Float64Array(anchors + 1);
  for (let a = 0; a < anchors; a++) {
    const centre = a * NOISE_FLOOR_STEP;
    let from = Math.max(0, centre - halfWindow);
    const to = Math.min(n, (from + span) | 0);
    from = Math.max(0, (to - span) | 0);
    for (let i = from; i < to; i++) buffer[i - from] = levels[i];
    noiseFloor[a] = percentileInPlaceF32(buffer, noisePercentile, to - from);
  }
  // round(i / 100) reaches `anchors` for the last frames of some lengths: they keep the last anchor's floor.
  noiseFloor[anchors] = noiseFloor[anchors - 1];
  const enterAt = (i: number): number => Math.max(noiseFloor[((i + NOISE_FLOOR_STEP / 2) / NOISE_FLOOR_STEP) | 0] + enterAboveNoiseDb, peakLimit);
  const runs: number[] = [];
  let inSpeech = false;
  let start = 0, lastActive = 0, previousEnd = 0;
  for (let i = 0; i < n; i++) {
    const enter = enterAt(i);
    const level = levels[i];
    if (!inSpeech) {
      if (level > enter) {
        start = i;
        while (start > previousEnd) {
          const before = start - 1;
          if (!(levels[before] > enterAt(before) - stayBelowEnterDb)) break;
          start = before;
        }
        inSpeech = true;
        lastActive = i;
      }
    } else if (level > enter - stayBelowEnterDb) {
      lastActive = i;
    } else if (i - lastActive > hangover) {
      runs.push(start, lastActive);
      inSpeech = false;
      previousEnd = lastActive + 1;
    }
  }
  if (inSpeech) runs.push(start, lastActive);
  return Int32Array.from(runs);
}

/** Counts of the high, then the low 16 bits of the f32 keys (the radix selection's scratch, made once per thread). */
let radixCounts: Uint32Array | null = null;

/**
 * The linearly interpolated percentile `p` of `values` as percentileInPlaceF32 gives it (the same
 * order statistics, the same arithmetic), without reordering or copying them: an f32's bits mapped
 * to an unsigned key order the values, so counting the keys' high 16 bits, then the low 16 bits
 * within the high bucket holding a rank, names the value of that rank. Values holding NaN (which has
 * no rank) are percentiled on a copy, as the kernel's quickselect orders them.
 */
export function percentileOfF32(values: Float32Array, p: number): number {
  const n = values.length;
  // The bits as i32 (small integers all, so no boxed number per value before the loops are optimised).
  const words = new Int32Array(values.buffer, values.byteOffset, n);
  for (let i = 0; i < n; i++) if ((words[i] & 0x7fffffff) > 0x7f800000) return percentileInPlaceF32(values.slice(), p);
  const r = ((n - 1) * p) / 100;
  const k = Math.floor(r);
  const low = valueOfRank(words, k);
  if (r === k) return low;
  const high = valueOfRank(words, k + 1);
  return low + (r - k) * (high - low);
}

/**
 * The value of rank `k` (from 0) among non-NaN f32 values given as their bits (`words`), by a
 * two-level radix count. The key of a value is its bits with the sign bit set when it is positive,
 * their complement when negative: unsigned key order is value order (−0 before +0); its high and
 * low 16 bits are counted (kept as small integers throughout).
 */
function valueOfRank(words: Int32Array, k: number): number {
  const counts = (radixCounts ??= new Uint32Array(65536));
  const n = words.length;
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const w = words[i];
    counts[w < 0 ? ~w >>> 16 : (w >>> 16) | 0x8000]++;
  }
  let rest = k, h = 0;
  while (rest >= counts[h]) rest -= counts[h++];
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const w = words[i];
    if ((w < 0 ? ~w >>> 16 : (w >>> 16) | 0x8000) === h) counts[(w < 0 ? ~w : w) & 0xffff]++;
  }
  let l = 0;
  while (rest >= counts[l]) rest -= counts[l++];
  // Back from the key: high bucket ≥ 0x8000 holds the positive values (sign clear), the others the complements of negative ones.
  radixWord[0] = h >= 0x8000 ? ((h & 0x7fff) << 16) | l : ~((h << 16) | l);
  return radixValue[0];
}
const radixWord = new Int32Array(1);
const radixValue = new Float32Array(radixWord.buffer);

/**
 * Speech runs of one channel of a recording read chunk by chunk (frame pairs: first frame, last
 * frame above T_off, acoustics.md §2.3): equal to RecordingKernels.speechRuns on the whole recording,
 * from the exact float samples when the source has them, else int16 / 32768. Opens its own arena
 * session; the arena holds one filter block, one chunk and the levels (4 bytes per 10 ms).
 *
 * @example
 * const runs = speechRunsStream(memoryPcmSource(decoded), 0, speechRunOptions(DEFAULT_ACOUSTICS_OPTIONS));
 */
export function speechRunsStream(source: PcmSource, channel: number, options: SpeechRunOptions): Int32Array {
  if (!Number.isInteger(channel) || channel < 0 || channel >= source.channels) {
    throw new RangeError(`channel must be an integer in [0, ${source.channels - 1}], got ${channel}`);
  }
  return withArena((arena) => {
    const activity = new ActivityStream(arena, source.sampleRate, arena.alloc(ActivityStream.yBytes(arena)));
    readPlanarChunks(arena, source, [channel], false, (chunk) => activity.push(chunk.channel(channel), chunk.frames));
    return speechRunsOfLevels(arena, activity.finish(), options);
  });
}

/** Σx, Σ|x|, Σ ln max(|x|, 1e−10) and clipping runs of a signal fed in chunks: equal to ChannelKernels.stats on the whole signal. */
export class StatsStream {
  private readonly state: number;
  private readonly rest: number;
  private resting = 0;
  private readonly out: number;

  constructor(private readonly arena: Arena, private readonly clipLevel: number, private readonly minRun: number) {
    this.state = arena.alloc(arena.k.signalStatsStateSize());
    checkStatus(arena.k.signalStatsInit(this.state), "signalStatsInit");
    this.rest = arena.allocF32(4);
    this.out = arena.allocF64(5);
  }

  /** Add `n` f32 samples at arena pointer `ptr`: groups of four from the first sample on, as the whole-signal kernel sums them. */
  push(ptr: number, n: number): void {
    const k = this.arena.k;
    let off = 0;
    if (this.resting > 0) {
      const take = Math.min(4 - this.resting, n);
      moveF32(this.arena, this.rest + 4 * this.resting, ptr, take);
      this.resting += take;
      off = take;
      if (this.resting < 4) return;
      checkStatus(k.signalStatsPush(this.state, this.rest, 4, this.clipLevel, this.minRun), "signalStatsPush");
      this.resting = 0;
    }
    const body = (n - off) & ~3;
    if (body > 0) checkStatus(k.signalStatsPush(this.state, ptr + 4 * off, body, this.clipLevel, this.minRun), "signalStatsPush");
    off += body;
    moveF32(this.arena, this.rest, ptr + 4 * off, n - off);
    this.resting = n - off;
  }

  /** The sums of everything pushed (call once, after the last push). */
  finish(): { sum: number; sumAbs: number; sumLn: number; clippingRuns: number; clippedSamples: number } {
    checkStatus(this.arena.k.signalStatsFinish(this.state, this.rest, this.resting, this.clipLevel, this.minRun, this.out), "signalStatsFinish");
    const v = this.arena.f64(this.out, 5);
    return { sum: v[0], sumAbs: v[1], sumLn: v[2], clippingRuns: v[3], clippedSamples: v[4] };
  }
}

/**
 * The Kaiser-windowed intensity contour (§3.2) of a signal fed in chunks: equal to
 * ChannelKernels.intensity on the whole signal. Holds one window of samples plus one push; the
 * contour (one f32 per step) is kept on the JS side.
 */
export class IntensityStream {
  private readonly window: number;
  private readonly buffer: number;
  private readonly capacity: number;
  private readonly out: number;
  private readonly outCapacity: number;
  /** Signal index of the buffer's first sample, samples buffered, next frame. */
  private base = 0;
  private buffered = 0;
  private next = 0;
  private readonly values: F32List;

  /**
   * `expectedFrames`, when the signal's length is known: the samples to come (the contour is then kept in one array of the exact length, `storage` when it has that length).
   * `sink`, when given, gets the contour's values batch by batch instead (values[from, from + count) of a view of the arena valid during the call): nothing is kept.
   */
  constructor(private readonly arena: Arena, private readonly windowLength: number, private readonly step: number, beta: number, maxPush = STREAM_CHUNK_FRAMES, expectedFrames = 0,
    storage?: Float32Array, private readonly sink?: (values: Float32Array, from: number, count: number) => void) {
    const k = arena.k;
    this.values = new F32List(!sink && expectedFrames > 0 ? k.syllableFrameCount(expectedFrames, windowLength, step) : 0, storage);
    this.window = arena.allocF32(windowLength);
    checkStatus(k.syllableKaiserWindow(this.window, windowLength, beta), "syllableKaiserWindow");
    this.capacity = windowLength + Math.max(step, maxPush);
    this.buffer = arena.allocF32(this.capacity);
    this.outCapacity = Math.floor((this.capacity - windowLength) / step) + 2;
    this.out = arena.allocF32(this.outCapacity);
  }

  /** Add `n` f32 samples at arena pointer `ptr`. */
  push(ptr: number, n: number): void {
    const { windowLength: length, step } = this;
    for (let off = 0; off < n;) {
      // Samples before the next frame's start are not needed (a step longer than the window).
      if (this.buffered === 0 && this.next * step > this.base) {
        const skip = Math.min(n - off, this.next * step - this.base);
        this.base += skip;
        off += skip;
        continue;
      }
      const take = Math.min(n - off, this.capacity - this.buffered);
      moveF32(this.arena, this.buffer + 4 * this.buffered, ptr + 4 * off, take);
      this.buffered += take;
      off += take;
      const end = this.base + this.buffered;
      if (end < length) continue;
      const last = Math.floor((end - length) / step);
      while (this.next <= last) {
        const count = Math.min(last - this.next + 1, this.outCapacity);
        const from = this.next * step - this.base;
        const written = checkStatus(this.arena.k.syllableIntensity(this.buffer + 4 * from, (count - 1) * step + length, this.window, length, step, this.out), "syllableIntensity");
        const memory = this.arena.memF32();
        if (this.sink) this.sink(memory, this.out >>> 2, written);
        else this.values.pushRange(memory, this.out >>> 2, written);
        this.next += count;
      }
      const drop = Math.min(this.buffered, this.next * step - this.base);
      moveF32(this.arena, this.buffer, this.buffer + 4 * drop, this.buffered - drop);
      this.base += drop;
      this.buffered -= drop;
    }
  }

  /** The contour of everything pushed (empty when a sink took it). */
  finish(): Float32Array {
    return this.values.toArray();
  }
}

/**
 * The low pass and decimation before YIN (yinDecimate) of a signal fed in chunks: the decimated
 * samples go to `sink` block by block, equal to yinDecimate on the whole signal. Holds one block.
 */
export class DecimateStream {
  private readonly scratch: number;
  private readonly buffer: number;
  private readonly out: number;
  private readonly block: number;
  private buffered = 0;

  constructor(private readonly arena: Arena, sampleRate: number, cutoffHz: number, factor: number, private readonly sink: (ptr: number, n: number) => void) {
    const k = arena.k;
    this.scratch = arena.alloc(k.yinDecimateScratchSize());
    checkStatus(k.yinDecimateInit(this.scratch, sampleRate, cutoffHz, factor), "yinDecimateInit");
    this.block = k.yinDecimateBlockLength();
    this.buffer = arena.allocF32(this.block);
    this.out = arena.allocF32(Math.ceil(this.block / factor) + 1);
  }

  /** Add `n` f32 samples at arena pointer `ptr`. */
  push(ptr: number, n: number): void {
    for (let off = 0; off < n;) {
      const take = Math.min(n - off, this.block - this.buffered);
      moveF32(this.arena, this.buffer + 4 * this.buffered, ptr + 4 * off, take);
      this.buffered += take;
      off += take;
      if (this.buffered === this.block) this.flush();
    }
  }

  private flush(): void {
    const written = checkStatus(this.arena.k.yinDecimateBlock(this.scratch, this.buffer, this.buffered, this.out), "yinDecimateBlock");
    this.buffered = 0;
    this.sink(this.out, written);
  }

  /** Decimate what is left (call once, after the last push). */
  finish(): void {
    if (this.buffered > 0) this.flush();
  }
}

/**
 * Frame starts read one after another: the frames that fit (`start` ≥ 0 and `start` + `span` ≤ the
 * signal's length), in order of start, each with its index in the caller's list.
 */
interface StartCursor {
  /** No frame left. */
  done: boolean;
  /** The current frame's start and index (valid while not done). */
  start: number;
  index: number;
  advance(): void;
}

/** The frames of `starts` that fit, in order of start (then index): a typed array of indices only when the starts are not ascending already. */
function arrayCursor(starts: Int32Array, span: number, total: number): StartCursor {
  const fits = (x: number) => x >= 0 && x + span <= total;
  let count = 0;
  let sorted = true;
  for (let i = 0, previous = -Infinity; i < starts.length; i++) {
    if (!fits(starts[i])) continue;
    if (starts[i] < previous) sorted = false;
    previous = starts[i];
    count++;
  }
  let order: Int32Array | null = null;
  if (!(sorted && count === starts.length)) {
    order = new Int32Array(count);
    for (let i = 0, j = 0; i < starts.length; i++) if (fits(starts[i])) order[j++] = i;
    if (!sorted) order.sort((a, b) => starts[a] - starts[b] || a - b);
  }
  const cursor: StartCursor = {
    done: false, start: 0, index: 0,
    advance() { next++; set(); },
  };
  let next = 0;
  const set = () => {
    cursor.done = next >= count;
    if (!cursor.done) {
      cursor.index = order ? order[next] : next;
      cursor.start = starts[cursor.index];
    }
  };
  set();
  return cursor;
}

/** Frame starts made one after another: `next()` gives the next start (ascending), or undefined after the last. */
export interface FrameStartSource {
  next(): number | undefined;
}

/** Frames whose starts come from a FrameStartSource in ascending order (the caller's guarantee, checked); those that do not fit are passed over. */
function sourceCursor(starts: FrameStartSource, span: number, total: number): StartCursor {
  let index = -1;
  let previous = -Infinity;
  const cursor: StartCursor = {
    done: false, start: 0, index: 0,
    advance() {
      for (;;) {
        const start = starts.next();
        if (start === undefined) { cursor.done = true; return; }
        index++;
        if (!(start >= previous)) throw new RangeError("frame starts from a FrameStartSource must be ascending");
        previous = start;
        if (start >= 0 && start + span <= total) { cursor.start = start; cursor.index = index; return; }
      }
    },
  };
  cursor.advance();
  return cursor;
}

/**
 * Frames of `span` samples at given starts of a signal fed in chunks, handed to `evaluate` in batches
 * as soon as they are whole in a sliding buffer: `evaluate(buffer, buffered, starts, count, frames)`
 * gets the buffer (f32), the starts relative to it (i32 in the arena) and the indices of the frames (`frames[0, count)`)
 * in the caller's list. Frames that do not fit in the signal (`start` < 0 or past `total` − `span`)
 * are never evaluated. Holds one frame plus one push. The starts are a typed array (any order), or
 * a FrameStartSource of ascending starts (then none are held: the F0 track's frames are made as they are needed).
 */
export class FrameWindows {
  private readonly cursor: StartCursor;
  private readonly which: Int32Array;
  private readonly buffer: number;
  private readonly capacity: number;
  private readonly startsAt: number;
  private base = 0;
  private buffered = 0;

  constructor(private readonly arena: Arena, starts: Int32Array | FrameStartSource, private readonly span: number, total: number,
    private readonly evaluate: (buffer: number, buffered: number, starts: number, count: number, frames: Int32Array) => void,
    maxPush: number, private readonly batch = 4096) {
    this.cursor = starts instanceof Int32Array ? arrayCursor(starts, span, total) : sourceCursor(starts, span, total);
    this.which = new Int32Array(batch);
    this.capacity = span + maxPush;
    this.buffer = arena.allocF32(this.capacity);
    this.startsAt = arena.allocI32(batch);
  }

  /** Whether every frame has been evaluated. */
  get done(): boolean {
    return this.cursor.done;
  }

  /** Add `n` f32 samples at arena pointer `ptr` (the signal's next samples). */
  push(ptr: number, n: number): void {
    const { cursor, span } = this;
    for (let off = 0; off < n;) {
      if (cursor.done) { this.base += n - off; return; }
      const wanted = cursor.start;
      if (this.buffered === 0 && wanted > this.base) {
        const skip = Math.min(n - off, wanted - this.base);
        this.base += skip;
        off += skip;
        continue;
      }
      const take = Math.min(n - off, this.capacity - this.buffered);
      moveF32(this.arena, this.buffer + 4 * this.buffered, ptr + 4 * off, take);
      this.buffered += take;
      off += take;
      const end = this.base + this.buffered;
      while (!cursor.done && cursor.start + span <= end) {
        let count = 0;
        const relative = this.arena.memI32();
        const at = this.startsAt >>> 2;
        while (count < this.batch && !cursor.done && cursor.start + span <= end) {
          relative[at + count] = cursor.start - this.base;
          this.which[count++] = cursor.index;
          cursor.advance();
        }
        this.evaluate(this.buffer, this.buffered, this.startsAt, count, this.which);
      }
      const keepFrom = cursor.done ? this.base + this.buffered : Math.max(this.base, cursor.start);
      const drop = Math.min(this.buffered, keepFrom - this.base);
      moveF32(this.arena, this.buffer, this.buffer + 4 * drop, this.buffered - drop);
      this.base += drop;
      this.buffered -= drop;
    }
  }
}

/**
 * YIN (yinFrames) on frames of a decimated signal fed in chunks, handed batch by batch to `sink`:
 * the period and aperiodicity of the batch's `count` frames at memory[periodAt + i] and
 * memory[aperiodicityAt + i] (a view of the arena valid during the call only) and each frame's index
 * in the caller's list at frames[i], with the arithmetic of ChannelKernels.yin on the whole signal.
 * Frames that do not fit in the signal are not evaluated (ChannelKernels.yin gives them period 0 and
 * aperiodicity 1).
 */
export class YinFrameStream {
  private readonly frames: FrameWindows;

  /** `total` is the decimated signal's length; `starts` a typed array (any order) or a FrameStartSource of ascending starts. */
  constructor(arena: Arena, starts: Int32Array | FrameStartSource, window: number, tauMin: number, tauMax: number, threshold: number, total: number, maxPush: number,
    sink: (memory: Float32Array, periodAt: number, aperiodicityAt: number, count: number, frames: Int32Array) => void) {
    const batch = 1024;
    const scratch = arena.allocF64(tauMax + 1);
    const period = arena.allocF32(batch);
    const aperiodicity = arena.allocF32(batch);
    this.frames = new FrameWindows(arena, starts, window + tauMax, total, (buffer, buffered, startsAt, n, which) => {
      checkStatus(arena.k.yinFrames(buffer, buffered, startsAt, n, window, tauMin, tauMax, threshold, scratch, period, aperiodicity), "yinFrames");
      sink(arena.memF32(), period >>> 2, aperiodicity >>> 2, n, which);
    }, maxPush, batch);
  }

  /** Add decimated samples. */
  push(ptr: number, n: number): void {
    this.frames.push(ptr, n);
  }
}

/** The summed Hann-windowed power spectra (spectrumAccumulate) of frames of a signal fed in chunks, as ChannelKernels.spectrum gives them on the whole signal (frames in ascending order). */
export class SpectrumStream {
  private readonly power: number;
  private readonly bins: number;
  private readonly frames: FrameWindows;

  constructor(private readonly arena: Arena, starts: Int32Array, fftSize: number, total: number, maxPush: number) {
    for (let i = 1; i < starts.length; i++) {
      if (!(starts[i] > starts[i - 1])) throw new RangeError("spectrum frame starts must be strictly ascending (the power sums in their order)");
    }
    const k = arena.k;
    this.bins = fftSize / 2 + 1;
    const scratch = arena.allocF64(k.spectrumScratchSize(fftSize));
    this.power = arena.allocF64(this.bins);
    arena.f64(this.power, this.bins).fill(0);
    this.frames = new FrameWindows(arena, starts, fftSize, total, (buffer, buffered, startsAt, n) => {
      checkStatus(k.spectrumAccumulate(buffer, buffered, startsAt, n, fftSize, scratch, this.power), "spectrumAccumulate");
    }, maxPush, 256);
  }

  /** Add the signal's next samples. */
  push(ptr: number, n: number): void {
    this.frames.push(ptr, n);
  }

  /** The N/2 + 1 summed power bins. */
  power64(): Float64Array {
    return this.arena.f64(this.power, this.bins).slice();
  }
}
