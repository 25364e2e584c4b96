// File-backed PcmSources: a WAV read from its file descriptor in bounded chunks, any other container decoded by ffmpeg into a temporary WAV that is read the same way.
//
// openPcmSource accepts exactly what decodeAudio accepts, with the same samples, warnings, errors and
// limits, without ever holding the recording: the header is examined from the file's first bytes
// (the decoded-size budget as decodeAudio's checkDeclared), the data chunk is located by the same
// chunk walk the whole-file decoder makes (wavefile's: fmt and data chunks found in order, pad bytes
// after odd chunks, the first of each kept; deepeval's Python `wave` walk under `--compat deepeval`),
// and each call of chunks() reads the samples again from disk, converting them chunk by chunk with
// the converters decodeAudio uses (convert.ts).
//
// Containers ffmpeg decodes are decoded once into a 16-bit WAV in a temporary folder (so every pass
// of chunks() sees the same samples, and no pass holds ffmpeg's output): ffmpeg itself stops at the
// decode budget (`-t`, from the length the container declares and the expansion rule) and at the
// 4 GB a WAV can describe (`-fs`), and is killed at the decode timeout. The folder is removed by
// dispose().
//
// This is the one WAV chunk reader of the engine: the random-access recording reader (wav-range.ts)
// locates, reads and converts a recording's frames with the functions exported here.
import { closeSync, fstatSync, openSync, readSync, rmSync } from "node:fs";
import type { CompatMode } from "../model/codec.js";
import { VoxError } from "../model/errors.js";
import { bytesToInt16, NonFiniteSampleError, type SampleEncoding } from "./convert.js";
import { checkDeclared, checkDecoded, DECLARED_HEADER_BYTES, failDecode, sampleEncoding, STREAMING_SIZES, type DecodeOptions } from "./decode.js";
import { DECODE_MESSAGES } from "./errors.js";
import { ffmpegToWavFile, findFfmpeg } from "./ffmpeg.js";
import { decodeBudgetSeconds, durationProblem, formatSeconds, readDeclaredWav, resolveAudioLimits, type AudioLimits } from "./limits.js";
import type { PcmChunk, PcmSource } from "./pcm-source.js";
import { isWaveFile, sniffAudio } from "./sniff.js";
import { CompatWavError, locateCompatWav, type ByteAccess } from "./wav-compat.js";

/** Options of openPcmSource: as decodeAudio's. */
export interface OpenSourceOptions {
  /** Audio acceptance (`deepeval`: exactly what deepeval accepts). */
  compat?: CompatMode;
  /** The decoded-size budget (DEFAULT_AUDIO_LIMITS for what is not given). */
  limits?: Partial<AudioLimits>;
  /** Name used in messages (defaults to the path). */
  name?: string;
}

/** A PcmSource over a file; dispose() closes it (and removes ffmpeg's temporary output). */
export interface FilePcmSource extends PcmSource {
  readonly frames: number;
  dispose(): void;
}

/** Frames per chunk when the consumer does not say. */
export const DEFAULT_CHUNK_FRAMES = 65536;
/** Most bytes read from the file for one chunk, whatever the frame count asked (many channels, wide samples). */
const MAX_CHUNK_BYTES = 4 << 20;
/** Bytes read at once while walking the chunk headers. */
const WINDOW_BYTES = 64 << 10;

/** Where a WAV's samples lie and how they are encoded. */
export interface WavLayout {
  sampleRate: number;
  channels: number;
  encoding: SampleEncoding;
  /** File offset of the first sample byte. */
  dataStart: number;
  /** Whole frames present. */
  frames: number;
  format: string;
  warnings: string[];
  /**
   * Whether the fmt chunk and only chunks that cannot change the samples (INERT_CHUNKS) come before
   * the data chunk (default mode; always true under `--compat deepeval`).
   */
  plainHeader: boolean;
}

/** Chunks before the data chunk that cannot change the samples. */
const INERT_CHUNKS: ReadonlySet<string> = new Set(["fmt ", "fact", "LIST", "JUNK", "junk", "PAD ", "FLLR", "id3 ", "ID3 "]);

/**
 * Open the audio file at `path` as a PcmSource: the same acceptance, samples, warnings and errors
 * (DecodeError, with decodeAudio's messages and codes) as `decodeAudio(readFileSync(path))`, in
 * bounded memory. File-system errors (ENOENT, EACCES, …) are thrown as they come. Call dispose()
 * when done.
 */
export function openPcmSource(path: string, options: OpenSourceOptions = {}): FilePcmSource {
  const limits = resolveAudioLimits(options.limits);
  const opts: DecodeOptions = { compat: options.compat, name: options.name ?? path, limits };
  const file = FileBytes.open(path);
  let handedOver = false;
  try {
    const found = locateAudio(file, opts);
    if ("ffmpeg" in found) {
      // Decoded by ffmpeg into a temporary WAV kept until dispose(); this file is closed below.
      const spill = spillThroughFfmpeg(path, found.head, file.length, opts, found.ffmpeg);
      try {
        return wavSource(spill.file, spill.layout, opts, spill.remove);
      } catch (e) {
        spill.file.close();
        spill.remove();
        throw e;
      }
    }
    checkDecoded(found, limits, opts);
    handedOver = true;
    return wavSource(file, found, opts, () => undefined);
  } finally {
    if (!handedOver) file.close();
  }
}

/**
 * Where the samples of an open audio file lie, with decodeAudio's checks and errors (the declared
 * size on the header, then the WAV layout in either mode); `ffmpeg` (why) with the file's head when
 * only ffmpeg decodes it. The decoded-size check (checkDecoded) is the caller's.
 */
export function locateAudio(file: FileBytes, opts: DecodeOptions): WavLayout | { ffmpeg: string; head: Uint8Array } {
  const head = file.bytes(0, DECLARED_HEADER_BYTES);
  checkDeclared(head, file.length, resolveAudioLimits(opts.limits), opts);
  return opts.compat === "deepeval" ? compatLayout(file, opts) : wideLayout(file, head, opts);
}

/** A file read at offsets through a small window (the chunk walk reads many 8-byte headers). */
export class FileBytes implements ByteAccess {
  private windowStart = 0;
  private window = new Uint8Array(0);
  private closed = false;

  private constructor(
    readonly fd: number,
    readonly length: number,
  ) {}

  static open(path: string): FileBytes {
    const fd = openSync(path, "r");
    try {
      return new FileBytes(fd, fstatSync(fd).size);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  bytes(start: number, end: number): Uint8Array {
    end = Math.min(end, this.length);
    if (!(end > start)) return new Uint8Array(0);
    if (start >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(start - this.windowStart, end - this.windowStart);
    }
    if (end - start > WINDOW_BYTES) {
      const out = new Uint8Array(end - start);
      return out.subarray(0, this.readAt(out, start));
    }
    const window = new Uint8Array(Math.min(WINDOW_BYTES, this.length - start));
    this.window = window.subarray(0, this.readAt(window, start));
    this.windowStart = start;
    return this.window.subarray(0, Math.min(end - start, this.window.length));
  }

  /** Fill `into` from `position` (fewer bytes only at the end of the file); returns the count read. */
  readAt(into: Uint8Array, position: number): number {
    let got = 0;
    while (got < into.length) {
      const n = readSync(this.fd, into, got, into.length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** `--compat deepeval`: Python `wave`'s walk and checks (decodeCompat's), the data located instead of read. */
function compatLayout(file: FileBytes, opts: DecodeOptions): WavLayout {
  let wav;
  try {
    wav = locateCompatWav(file);
  } catch (e) {
    const why = e instanceof CompatWavError ? e.message : String(e);
    failDecode(DECODE_MESSAGES.notDecodable, `not a 16-bit PCM WAV deepeval can read (${why})`, opts);
  }
  if (wav.sampleWidth !== 2) {
    failDecode(DECODE_MESSAGES.notDecodable, `Expected 16-bit PCM WAV (sample width 2), got ${wav.sampleWidth}.`, opts);
  }
  if (wav.dataLength % 2 !== 0) {
    failDecode(DECODE_MESSAGES.oddBytes, `truncated data chunk leaves ${wav.dataLength} bytes (${DECODE_MESSAGES.oddBytes})`, opts);
  }
  const frames = Math.floor(wav.dataLength / 2 / wav.channels);
  if (wav.sampleRate === 0 || frames === 0) {
    failDecode(DECODE_MESSAGES.noSamples, wav.sampleRate === 0 ? "sample rate is 0" : "the data chunk holds no samples", opts);
  }
  return { sampleRate: wav.sampleRate, channels: wav.channels, encoding: "pcm16", dataStart: wav.dataStart, frames, format: "wav/pcm16", warnings: [], plainHeader: true };
}

const ascii = (b: Uint8Array, at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);

/** The default mode: PCM and float WAVs located and read here, anything else decoded by ffmpeg (decodeWide's acceptance). */
function wideLayout(file: FileBytes, head: Uint8Array, opts: DecodeOptions): WavLayout | { ffmpeg: string; head: Uint8Array } {
  if (file.length === 0) failDecode(DECODE_MESSAGES.noSamples, "the file is empty (0 bytes)", opts);
  if (!isWaveFile(head)) return { ffmpeg: "not a RIFF/WAVE file", head };

  // The chunk walk: headers of 8 bytes from offset 12, each chunk followed by a pad byte when odd; the first fmt and the first data count.
  let fmtAt = -1, fmtSize = 0, dataAt = -1, dataSize = 0;
  let plainHeader = true;
  for (let at = 12; at + 8 <= file.length && (fmtAt < 0 || dataAt < 0); ) {
    const h = file.bytes(at, at + 8);
    const id = ascii(h, 0);
    const size = (h[4] | (h[5] << 8) | (h[6] << 16) | (h[7] << 24)) >>> 0;
    if (id === "fmt " && fmtAt < 0) [fmtAt, fmtSize] = [at + 8, size];
    else if (id === "data" && dataAt < 0) [dataAt, dataSize, plainHeader] = [at + 8, size, plainHeader && fmtAt >= 0];
    else if (dataAt < 0 && !INERT_CHUNKS.has(id)) plainHeader = false;
    at += 8 + size + (size & 1);
  }
  if (fmtAt < 0) failDecode(DECODE_MESSAGES.notDecodable, 'unreadable WAV: Could not find the "fmt " chunk', opts);
  if (dataAt < 0) failDecode(DECODE_MESSAGES.notDecodable, 'unreadable WAV: Could not find the "data" chunk', opts);

  // fmt fields at their fixed offsets (read past a short chunk, null past the end of the file); the extension only in a chunk longer than 20 bytes.
  const f = file.bytes(fmtAt, fmtAt + 40);
  const v = new DataView(f.buffer, f.byteOffset, f.byteLength);
  const u16 = (o: number) => (o + 2 <= f.length ? v.getUint16(o, true) : null);
  const u32 = (o: number) => (o + 4 <= f.length ? v.getUint32(o, true) : null);
  const audioFormat = u16(0);
  const numChannels = u16(2) as number;
  const sampleRate = u32(4) as number;
  const bitsPerSample = u16(14);
  const tag = audioFormat === 0xfffe ? (fmtSize > 20 ? u32(24) : undefined) : audioFormat;
  const encoding = sampleEncoding(tag as number, bitsPerSample as number);
  if (!encoding) return { ffmpeg: `WAV format tag ${audioFormat} with ${bitsPerSample}-bit samples`, head };
  if (numChannels < 1) failDecode(DECODE_MESSAGES.notDecodable, "the fmt chunk declares 0 channels", opts);
  if (sampleRate < 1) failDecode(DECODE_MESSAGES.noSamples, "the fmt chunk declares a sample rate of 0", opts);

  // The data: up to its declared size (and pad byte) or to the end of the file for the streaming sizes.
  const available = Math.max(0, Math.min(file.length, dataAt + dataSize + (dataSize & 1)) - dataAt);
  const streaming = STREAMING_SIZES.has(dataSize);
  const present = streaming ? available : Math.min(available, dataSize);
  if (!streaming && present < dataSize) {
    failDecode(DECODE_MESSAGES.notDecodable, `truncated WAV: the data chunk declares ${dataSize} bytes but only ${present} are present`, opts);
  }
  const warnings: string[] = [];
  const frameBytes = Math.ceil((bitsPerSample as number) / 8) * numChannels;
  const frames = Math.floor(present / frameBytes);
  if (present % frameBytes !== 0) warnings.push(`ignored ${present % frameBytes} trailing byte(s) of a partial frame`);
  if (frames === 0) failDecode(DECODE_MESSAGES.noSamples, "the data chunk holds no samples (zero-length audio)", opts);
  return { sampleRate, channels: numChannels, encoding, dataStart: dataAt, frames, format: `wav/${encoding}`, warnings, plainHeader };
}

const BYTES_PER_SAMPLE: Record<SampleEncoding, number> = { pcm8: 1, pcm16: 2, pcm24: 3, pcm32: 4, float32: 4, float64: 8 };

/** Bytes of one frame (all channels) of a located WAV. */
export function wavFrameBytes(layout: Pick<WavLayout, "encoding" | "channels">): number {
  return BYTES_PER_SAMPLE[layout.encoding] * layout.channels;
}

/** Read the bytes of frames [at, at + into.length / frame bytes) into `into`; returns the whole frames read (fewer only when the file became shorter). */
export function readWavFrames(file: FileBytes, layout: WavLayout, at: number, into: Uint8Array): number {
  const frameBytes = wavFrameBytes(layout);
  return Math.floor(file.readAt(into, layout.dataStart + at * frameBytes) / frameBytes);
}

/**
 * int16 (and, for float WAVs, the exact floats) of the frames whose bytes are `bytes`, the first
 * being frame `at`: the decoder's conversion; a non-finite float is decodeAudio's error, placed in
 * the whole recording.
 */
export function convertWavFrames(bytes: Uint8Array, layout: WavLayout, at: number, opts: DecodeOptions): { samples: Int16Array; floatChannels?: Float32Array[] } {
  const { encoding, channels, sampleRate } = layout;
  try {
    return bytesToInt16(bytes, encoding, bytes.length / BYTES_PER_SAMPLE[encoding], channels);
  } catch (e) {
    if (!(e instanceof NonFiniteSampleError)) throw e;
    const index = at * channels + e.index;
    const where = new NonFiniteSampleError(index, e.value);
    failDecode(DECODE_MESSAGES.notDecodable, `float WAV holds a non-finite value: ${where.message} at ${(Math.floor(index / channels) / sampleRate).toFixed(4)} s`, opts);
  }
}

/** The chunks of a located WAV, read again from the file on every pass. */
function wavSource(file: FileBytes, layout: WavLayout, opts: DecodeOptions, onDispose: () => void): FilePcmSource {
  const { sampleRate, channels, encoding, frames } = layout;
  const frameBytes = wavFrameBytes(layout);
  let disposed = false;
  return {
    sampleRate,
    channels,
    format: layout.format,
    frames,
    warnings: layout.warnings,
    *chunks(maxFrames = DEFAULT_CHUNK_FRAMES): Iterable<PcmChunk> {
      if (!(Number.isInteger(maxFrames) && maxFrames >= 1)) throw new RangeError(`maxFrames must be a positive integer, got ${maxFrames}`);
      if (disposed) throw new Error(`${opts.name}: the source was disposed`);
      const per = Math.max(1, Math.min(maxFrames, Math.floor(MAX_CHUNK_BYTES / frameBytes), frames));
      const buffer = new Uint8Array(per * frameBytes);
      // 16-bit samples are handed out in place: one chunk object and one view serve every full chunk of the pass.
      const full = encoding === "pcm16" ? new Int16Array(buffer.buffer, 0, per * channels) : null;
      const chunk: PcmChunk = { frames: per, samples: full ?? new Int16Array(0) };
      for (let at = 0; at < frames; ) {
        const n = Math.min(per, frames - at);
        const bytes = buffer.subarray(0, n * frameBytes);
        if (readWavFrames(file, layout, at, bytes) < n) {
          throw new VoxError("IO_ERROR", "the file became shorter while it was read", { file: opts.name });
        }
        if (full) {
          chunk.frames = n;
          chunk.samples = n === per ? full : full.subarray(0, n * channels);
          yield chunk;
        } else {
          const converted = convertWavFrames(bytes, layout, at, opts);
          yield { frames: n, samples: converted.samples, floatChannels: converted.floatChannels };
        }
        at += n;
      }
    },
    dispose(): void {
      if (disposed) return;
      disposed = true;
      try {
        file.close();
      } finally {
        onDispose();
      }
    },
  };
}

/** How a temporary decode is kept: its folder's kind (temp-dirs.ts), and whether the folder goes as soon as the WAV is open. */
export interface SpillOptions {
  /** @defaultValue "decode" */
  kind?: string;
  /** Remove the folder once the decoded WAV is open (its descriptor keeps the samples readable); else remove() does. */
  removeOnOpen?: boolean;
}

/**
 * A container only ffmpeg decodes: decodeWithFfmpeg's checks and messages (the declared length and
 * the expansion rule, ffmpeg missing or failing), with ffmpeg's output written to a temporary WAV,
 * opened and located (the decoded-size checks made). The caller closes `file` and calls `remove`.
 */
export function spillThroughFfmpeg(path: string, head: Uint8Array, fileLength: number, opts: DecodeOptions, what: string, spill: SpillOptions = {}): { file: FileBytes; layout: WavLayout; remove: () => void } {
  const ffmpeg = findFfmpeg();
  if (!ffmpeg) {
    failDecode(DECODE_MESSAGES.notDecodable, `${what}; decoding it needs ffmpeg, which was not found (set $FFMPEG_PATH or install ffmpeg)`, opts, "FFMPEG_MISSING");
  }
  const limits = resolveAudioLimits(opts.limits);
  const declared = readDeclaredWav(head.subarray(0, DECLARED_HEADER_BYTES));
  const declaredSeconds = declared && declared.byteRate > 0 && declared.dataBytes !== null ? Math.min(declared.dataBytes, fileLength) / declared.byteRate : null;
  const declaredTooLong = declaredSeconds === null ? null : durationProblem(declaredSeconds, limits);
  if (declaredTooLong) failDecode(DECODE_MESSAGES.notDecodable, `${what}; the WAV header declares ${declaredTooLong}`, opts, "LIMIT_EXCEEDED");
  const budget = decodeBudgetSeconds(declaredSeconds, limits);
  const run = ffmpegToWavFile(ffmpeg, path, { maxSeconds: budget, timeoutMs: limits.decodeTimeoutSeconds * 1000 }, spill.kind);
  if (!run.ok) failDecode(DECODE_MESSAGES.notDecodable, `${what}; ${run.message}`, opts, run.code);
  const remove = () => rmSync(run.dir, { recursive: true, force: true });
  let out: FileBytes | undefined;
  try {
    out = FileBytes.open(run.wav);
    // The open descriptor keeps the decoded samples readable: the folder may go now, so nothing is left behind however the process ends.
    if (spill.removeOnOpen) remove();
    const layout = wideLayout(out, out.bytes(0, DECLARED_HEADER_BYTES), opts);
    if ("ffmpeg" in layout) throw new Error("ffmpeg's output is not a PCM WAV"); // never: ffmpeg writes pcm_s16le
    if (layout.frames / layout.sampleRate > budget) {
      const why = declaredSeconds === null || budget >= limits.maxAudioSeconds ? `it decodes to more than the limit of ${limits.maxAudioSeconds} s (--max-audio-seconds)` : `it decodes to more than ${formatSeconds(budget)}, but its header declares ${formatSeconds(declaredSeconds)} (a decompression bomb?)`;
      failDecode(DECODE_MESSAGES.notDecodable, `${what}; ${why}`, opts, "LIMIT_EXCEEDED");
    }
    const { container } = sniffAudio(head);
    const located = { ...layout, format: `ffmpeg/${container === "other" ? "audio" : container}` };
    checkDecoded(located, limits, opts);
    const file = out;
    out = undefined;
    return { file, layout: located, remove };
  } catch (e) {
    out?.close();
    remove();
    throw e;
  }
}
