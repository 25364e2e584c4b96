// Random-access reading of a recording on disk: frames [from, to) of one channel, and the whole recording as a PcmSource, without holding it (formats.md §F0.3, F5).
//
// The recording is located, read and converted by the engine's one WAV reader (open-source.ts,
// which openPcmSource reads with too): a PCM or float RIFF/WAVE file is read in place, in either
// mode (`--compat deepeval` locates the data as Python's `wave` does), with decodeAudio's samples,
// warnings and errors; any byte range of the data chunk is converted with the decoder's own
// conversions. Another container is decoded once through ffmpeg into a temporary 16-bit WAV on disk
// (the same bounds and messages as decodeAudio's ffmpeg path), whose folder is removed as soon as the
// WAV is open, and read from there. A default-mode WAV with a chunk the engine does not know before
// its data is decoded whole with decodeAudio.
import type { CompatMode } from "../model/codec.js";
import { checkDecoded, decodeAudio, type DecodeOptions } from "./decode.js";
import { DECODE_MESSAGES, DecodeError } from "./errors.js";
import { resolveAudioLimits, type AudioLimits } from "./limits.js";
import { convertWavFrames, FileBytes, locateAudio, readWavFrames, spillThroughFfmpeg, wavFrameBytes, type WavLayout } from "./open-source.js";
import { memoryPcmSource, type PcmChunk, type PcmSource } from "./pcm-source.js";
import type { DecodedAudio } from "./types.js";

/** Options of openRecordingReader: as decodeAudio's, for a file on disk. */
export interface RecordingReaderOptions {
  compat?: CompatMode;
  /** Name used in messages (the display path). */
  name?: string;
  limits?: Partial<AudioLimits>;
  /** Most frames per chunk and per read (chunks() gives at most this many even when asked for more). @defaultValue 65536 */
  chunkFrames?: number;
}

/** A recording read by frame range, and as a PcmSource whose `frames` is always known. */
export interface RecordingReader extends PcmSource {
  readonly frames: number;
  /** Frames [from, to) of `channel` as int16 (what decodeAudio's interleaved samples hold), written into `into` (length to − from). */
  readInt16(channel: number, from: number, to: number, into: Int16Array): void;
  /** Whether the samples are read from disk (false: the recording was decoded whole into memory). */
  readonly streamed: boolean;
  /** Close the file (and with it any temporary decode, whose folder is already gone); the reader is unusable afterwards. */
  dispose(): void;
}

const DEFAULT_CHUNK_FRAMES = 65536;

/** A located WAV read from its file: chunks and frame ranges converted by the one WAV reader's functions (open-source.ts). */
class FileWavReader implements RecordingReader {
  readonly sampleRate: number;
  readonly channels: number;
  readonly frames: number;
  readonly format: string;
  readonly streamed = true;
  readonly warnings: string[];
  private file: FileBytes | null;
  private readonly frameBytes: number;
  private buffer = new Uint8Array(0);

  constructor(
    file: FileBytes,
    private readonly layout: WavLayout,
    private readonly opts: DecodeOptions,
    private readonly chunkFrames: number,
  ) {
    this.file = file;
    this.sampleRate = layout.sampleRate;
    this.channels = layout.channels;
    this.frames = layout.frames;
    this.format = layout.format;
    this.warnings = [...layout.warnings];
    this.frameBytes = wavFrameBytes(layout);
  }

  /** Bytes of frames [from, from + n) in a buffer reused between reads (16-byte aligned, at offset 0). */
  private bytesOf(from: number, n: number): Uint8Array {
    if (!this.file) throw new Error("the recording reader was disposed");
    const want = n * this.frameBytes;
    if (this.buffer.length < want) this.buffer = new Uint8Array(want);
    const bytes = this.buffer.subarray(0, want);
    const got = readWavFrames(this.file, this.layout, from, bytes);
    if (got < n) throw new DecodeError(DECODE_MESSAGES.notDecodable, `the file shrank while it was read (frame ${from + got} of ${this.frames} is gone)`, { file: this.opts.name });
    return bytes;
  }

  *chunks(maxFrames?: number): Iterable<PcmChunk> {
    // The reader's own chunk size caps what the consumer asks for (a source may give fewer frames than asked).
    const size = Math.max(1, Math.floor(Math.min(maxFrames ?? Infinity, this.chunkFrames)));
    for (let at = 0; at < this.frames; ) {
      const n = Math.min(size, this.frames - at);
      const bytes = this.bytesOf(at, n);
      if (this.layout.encoding === "pcm16") {
        // 16-bit samples are the file's bytes: a view on the read buffer (reused by the next chunk), no conversion.
        yield { frames: n, samples: new Int16Array(bytes.buffer, bytes.byteOffset, n * this.channels) };
      } else {
        const { samples, floatChannels } = convertWavFrames(bytes, this.layout, at, this.opts);
        yield { frames: n, samples, floatChannels };
      }
      at += n;
    }
  }

  readInt16(channel: number, from: number, to: number, into: Int16Array): void {
    checkRange(this, channel, from, to, into);
    const { channels, encoding } = this.layout;
    for (let at = from; at < to; ) {
      const n = Math.min(this.chunkFrames, to - at);
      const o0 = at - from;
      const bytes = this.bytesOf(at, n);
      if (encoding === "pcm16") {
        // The common case without a conversion array: little-endian int16 straight from the bytes.
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let k = 0, o = 2 * channel; k < n; k++, o += 2 * channels) into[o0 + k] = view.getInt16(o, true);
      } else {
        const { samples } = convertWavFrames(bytes, this.layout, at, this.opts);
        for (let k = 0, o = channel; k < n; k++, o += channels) into[o0 + k] = samples[o];
      }
      at += n;
    }
  }

  dispose(): void {
    this.file?.close();
    this.file = null;
  }
}

function checkRange(r: RecordingReader, channel: number, from: number, to: number, into: Int16Array): void {
  if (!Number.isInteger(channel) || channel < 0 || channel >= r.channels) throw new RangeError(`channel must be an integer in [0, ${r.channels - 1}], got ${channel}`);
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > r.frames) throw new RangeError(`frames [${from}, ${to}) are not inside [0, ${r.frames})`);
  if (into.length !== to - from) throw new RangeError(`the output holds ${into.length} samples, expected ${to - from}`);
}

/** A RecordingReader over audio decoded whole (what decodeAudio gave). */
export function memoryRecordingReader(decoded: DecodedAudio, chunkFrames = DEFAULT_CHUNK_FRAMES): RecordingReader {
  const source = memoryPcmSource(decoded, chunkFrames);
  const reader: RecordingReader = {
    sampleRate: decoded.sampleRate,
    channels: decoded.channels,
    format: decoded.format,
    frames: decoded.frames,
    warnings: source.warnings,
    streamed: false,
    chunks: (maxFrames?: number) => source.chunks(maxFrames),
    readInt16(channel, from, to, into) {
      checkRange(reader, channel, from, to, into);
      const { samples, channels } = decoded;
      for (let k = 0, o = from * channels + channel; k < into.length; k++, o += channels) into[k] = samples[o];
    },
    dispose() {},
  };
  return reader;
}

/**
 * Open a recording file for reading by frame range, in bounded memory for any PCM/float WAV (in
 * either mode) and, through one ffmpeg decode to a temporary WAV on disk, any other container.
 * Throws DecodeError as decodeAudio would for the same file. The caller disposes the reader.
 */
export function openRecordingReader(path: string, options: RecordingReaderOptions = {}): RecordingReader {
  const limits = resolveAudioLimits(options.limits);
  const opts: DecodeOptions = { compat: options.compat, name: options.name, limits };
  const chunkFrames = Math.max(1, Math.floor(options.chunkFrames ?? DEFAULT_CHUNK_FRAMES));
  const file = FileBytes.open(path);
  let handedOver = false;
  try {
    if (file.length === 0) return memoryRecordingReader(decodeAudio(new Uint8Array(0), opts), chunkFrames);
    const found = locateAudio(file, opts);
    if ("ffmpeg" in found) {
      const spill = spillThroughFfmpeg(path, found.head, file.length, opts, found.ffmpeg, { kind: "rec", removeOnOpen: true });
      return new FileWavReader(spill.file, spill.layout, opts, chunkFrames);
    }
    // A chunk before the data that the engine does not know is left to the whole-file decoder.
    if (!found.plainHeader) return memoryRecordingReader(decodeAudio(readWhole(file), opts), chunkFrames);
    checkDecoded(found, limits, opts);
    const reader = new FileWavReader(file, found, opts, chunkFrames);
    handedOver = true;
    if (found.encoding === "float32" || found.encoding === "float64") {
      // decodeAudio refuses a float WAV holding NaN or ±Inf anywhere before anything else happens: one pass finds it here too.
      try {
        for (const chunk of reader.chunks()) void chunk;
      } catch (e) {
        reader.dispose();
        throw e;
      }
    }
    return reader;
  } finally {
    if (!handedOver) file.close();
  }
}

/**
 * Open a 16-bit PCM WAV the way `--compat deepeval` reads it (Python's `wave`: the data chunk's
 * whole frames, bounded by the RIFF chunk and the file), read in place, with decodeAudio's errors
 * for a file deepeval would not read.
 */
export function openCompatRecordingReader(path: string, options: Omit<RecordingReaderOptions, "compat"> = {}): RecordingReader {
  return openRecordingReader(path, { ...options, compat: "deepeval" });
}

/** The whole file (a WAV the reader leaves to decodeAudio). */
function readWhole(file: FileBytes): Uint8Array {
  const bytes = new Uint8Array(file.length);
  return bytes.subarray(0, file.readAt(bytes, 0));
}
