// The streaming contract between decoders and measurements: a recording read as a sequence of bounded chunks, re-readable from the start.
//
// A PcmSource describes one decoded recording without holding it: each call of chunks() reads it
// again from its first frame (a WAV file is read again from disk; a decoded stream from wherever its
// decoder spilled it), so a measurement that needs two passes (speech segments first, then what is
// measured inside them) stays in bounded memory. Chunks carry the same samples decodeAudio gives
// for the whole recording: interleaved int16 after the conversions of formats.md §F0.3, and the
// exact planar floats where the source was floating point. A chunk is valid until the next one is
// asked for: the source may reuse the chunk object and its arrays for the next chunk (the WAV reader
// of open-source.ts does), so a consumer copies what it keeps before asking for the next one.
import type { DecodedAudio } from "./types.js";

/** One bounded piece of a recording: `frames` whole frames. Valid until the next chunk is asked for (the source may reuse it). */
export interface PcmChunk {
  /** Whole frames in this chunk (≥ 1). */
  frames: number;
  /** Interleaved int16 samples (frames × channels), as decodeAudio gives them. */
  samples: Int16Array;
  /** The exact float samples, planar (one array of `frames` per channel), when the source was floating point. */
  floatChannels?: Float32Array[];
}

/** A recording that can be read, chunk by chunk, as often as needed. */
export interface PcmSource {
  readonly sampleRate: number;
  readonly channels: number;
  /** What is decoded, as DecodedAudio.format (`wav/pcm16`, `ffmpeg/mp3`, …). */
  readonly format: string;
  /** Frames the source holds when known before reading (a WAV header); null when only reading to the end tells. */
  readonly frames: number | null;
  /** Non-fatal observations made so far (as DecodedAudio.warnings). */
  readonly warnings: string[];
  /** Read the recording from its first frame, in chunks of at most `maxFrames` frames (a source default when omitted). */
  chunks(maxFrames?: number): Iterable<PcmChunk>;
  /** Release what the source opened (a file, a decoder's temporary output); chunks() may not be called afterwards. */
  dispose?(): void;
}

/** Chunk sizes for memoryPcmSource: a fixed frame count, or a function giving each next size (≥ 1). */
export type ChunkSizes = number | ((index: number) => number);

/**
 * A PcmSource over audio already in memory, cut into chunks of the given sizes (for tests and for
 * callers that hold a clip anyway). Chunks are views, not copies.
 */
export function memoryPcmSource(audio: DecodedAudio, sizes: ChunkSizes = 65536): PcmSource {
  const { sampleRate, channels, frames, samples, floatChannels, format } = audio;
  const sizeAt = typeof sizes === "number" ? () => sizes : sizes;
  return {
    sampleRate,
    channels,
    format,
    frames,
    warnings: [...audio.warnings],
    *chunks(maxFrames?: number): Iterable<PcmChunk> {
      for (let at = 0, i = 0; at < frames; i++) {
        const want = Math.floor(sizeAt(i));
        if (!(want >= 1)) throw new RangeError(`chunk size ${want} at chunk ${i} is not a positive integer`);
        const n = Math.min(want, maxFrames ?? want, frames - at);
        yield {
          frames: n,
          samples: samples.subarray(at * channels, (at + n) * channels),
          floatChannels: floatChannels?.map((c) => c.subarray(at, at + n)),
        };
        at += n;
      }
    },
  };
}

/** A deterministic generator of chunk sizes in [1, max] (xorshift32 from `seed`), for property tests at random chunk sizes. */
export function randomChunkSizes(seed: number, max: number): (index: number) => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return 1 + (s % max);
  };
}

/**
 * The whole recording of a source gathered into one DecodedAudio (what decodeAudio returns for it):
 * for callers that need the whole clip at once, and for tests comparing a source with decodeAudio.
 * Holds the recording in memory — streaming consumers read chunks() instead.
 */
export function collectPcmSource(source: PcmSource, maxFrames?: number): DecodedAudio {
  const parts: Int16Array[] = [];
  const floatParts: Float32Array[][] = [];
  let frames = 0;
  let hasFloats: boolean | null = null;
  for (const chunk of source.chunks(maxFrames)) {
    parts.push(chunk.samples.slice(0, chunk.frames * source.channels));
    if (hasFloats === null) hasFloats = chunk.floatChannels !== undefined;
    if (hasFloats !== (chunk.floatChannels !== undefined)) throw new Error("a source gave float channels for some chunks only");
    if (chunk.floatChannels) floatParts.push(chunk.floatChannels.map((c) => c.slice(0, chunk.frames)));
    frames += chunk.frames;
  }
  const samples = new Int16Array(frames * source.channels);
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  let floatChannels: Float32Array[] | undefined;
  if (hasFloats) {
    floatChannels = Array.from({ length: source.channels }, () => new Float32Array(frames));
    let f = 0;
    for (const chunk of floatParts) {
      chunk.forEach((c, ch) => floatChannels![ch].set(c, f));
      f += chunk[0].length;
    }
  }
  return { sampleRate: source.sampleRate, channels: source.channels, frames, samples, floatChannels, format: source.format, warnings: [...source.warnings] };
}
