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
import { runsOfLevelsAt, type SpeechRunOptions } from "./channel-kernels.js";
import { checkStatus, expectResult } from "./kernel-error.js";
import { withArena, type Arena } from "./wasm.js";

/** Frames read from a source per chunk (the source may give fewer). */
export const STREAM_CHUNK_FRAMES = 1 << 16;

/** A growable Float32Array (amortised doubling). */
export class F32List {
  private data = new Float32Array(1024);
  length = 0;
  pushAll(values: Float32Array): void {
    if (this.length + values.length > this.data.length) {
      let size = this.data.length * 2;
      while (size < this.length + values.length) size *= 2;
      const grown = new Float32Array(size);
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(values, this.length);
    this.length += values.length;
  }
  /** The values so far (a copy of exactly `length` values). */
  toArray(): Float32Array {
    return this.data.slice(0, this.length);
  }
}

/** The whole of WebAssembly memory as f32 (re-made when memory grew). */
function memF32(arena: Arena): Float32Array {
  return new Float32Array(arena.k.memory.buffer);
}

/** Copy `n` f32 from `from` to `to` inside the arena (regions may overlap). */
function moveF32(arena: Arena, to: number, from: number, n: number): void {
  if (n > 0 && to !== from) memF32(arena).copyWithin(to >>> 2, from >>> 2, (from >>> 2) + n);
}

/** One chunk of a source as planar f32 channels (and the per-sample mean) in the arena. */
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
 * The arena regions are allocated once and reused for every chunk. Returns the frames read.
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
  const slot = new Map(list.map((c, i) => [c, i]));
  let total = 0;
  for (const chunk of source.chunks(maxFrames)) {
    const frames = chunk.frames;
    if (!Number.isInteger(frames) || frames < 1) throw new RangeError(`a chunk of the source holds ${frames} frames, expected a positive integer`);
    if (chunk.samples.length < frames * channels) throw new RangeError(`a chunk of the source holds ${chunk.samples.length} samples, expected ${frames * channels}`);
    for (let at = 0; at < frames; at += maxFrames) {
      const n = Math.min(maxFrames, frames - at);
      if (chunk.floatChannels) {
        for (const c of list) {
          const exact = chunk.floatChannels[c];
          if (!exact || exact.length < at + n) throw new RangeError(`float channel ${c} of a chunk holds ${exact?.length ?? 0} samples, expected ${frames}`);
          arena.copyPcmTo(planar + 4 * slot.get(c)! * n, exact.subarray(at, at + n));
        }
      } else {
        arena.copyPcmTo(interleaved, chunk.samples.subarray(at * channels, (at + n) * channels));
        for (const c of list) expectResult(k.deinterleaveF32(interleaved, channels, c, 0, n, planar + 4 * slot.get(c)! * n), n, "deinterleaveF32");
      }
      if (all) expectResult(k.mixdownMeanF32(planar, channels, n, mean), n, "mixdownMeanF32");
      const channelAt = (c: number): number => {
        const i = slot.get(c);
        if (i === undefined) throw new RangeError(`channel ${c} was not read`);
        return planar + 4 * i * n;
      };
      use({ frames: n, channel: channelAt, mean: () => (all ? mean : channelAt(list[0])) });
      total += n;
    }
  }
  return total;
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
  private readonly levels = new F32List();

  /** `y` is a shared region of activityStreamBlockLength() f64 (16-byte aligned) the filter writes into. */
  constructor(private readonly arena: Arena, readonly sampleRate: number, private readonly y: number) {
    const k = arena.k;
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
    this.levels.pushAll(this.arena.f32(this.out, frames));
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

/** Speech runs (frame pairs) of frame levels, from a session's arena (copies the levels in). */
export function speechRunsOfLevels(arena: Arena, levels: Float32Array, options: SpeechRunOptions): Int32Array {
  return runsOfLevelsAt(arena, arena.putF32(levels), levels.length, options);
}

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
