// Random-access reading of a recording on disk: frames [from, to) of one channel, and the whole recording as a PcmSource, without holding it (formats.md §F0.3, F5).
//
// A PCM or float RIFF/WAVE file is read in place: its fmt and data chunks are found the way the
// decoder finds them (the first of each, walking the chunk list with pad bytes), and any byte range
// of the data chunk is converted with the decoder's own conversions, so every sample is the one
// decodeAudio gives. Another container is decoded once through ffmpeg into a temporary 16-bit WAV
// on disk (the same bounds and messages as decodeAudio's ffmpeg path), unlinked as soon as it is
// open, and read from there. A WAV
// this reader does not take in place (malformed, big-endian, an extensible header without its
// sub-format, or `--compat deepeval`, which reads WAVs the way Python's `wave` does) is decoded
// whole with decodeAudio, so its result and its errors stay exactly today's.
import { closeSync, fstatSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { isMainThread } from "node:worker_threads";
import { join } from "node:path";
import type { CompatMode } from "../model/codec.js";
import { bytesToInt16, NonFiniteSampleError, type SampleEncoding } from "./convert.js";
import { decodeAudio } from "./decode.js";
import { DECODE_MESSAGES, DecodeError } from "./errors.js";
import { ffmpegToWavFile, findFfmpeg } from "./ffmpeg.js";
import { channelsProblem, decodeBudgetSeconds, durationProblem, formatSeconds, readDeclaredWav, resolveAudioLimits, sampleRateProblem, type AudioLimits } from "./limits.js";
import { memoryPcmSource, type PcmChunk, type PcmSource } from "./pcm-source.js";
import { isWaveFile, sniffAudio } from "./sniff.js";
import { readCompatWav } from "./wav-compat.js";
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
/** Header bytes examined for the declared format, as decodeAudio does. */
const DECLARED_HEADER_BYTES = 1 << 20;
/** The data chunk sizes that mean "to the end of the file" (a WAV written to a pipe). */
const STREAMING_SIZES = new Set([0, 0xffffffff]);
/** Chunks before the data chunk that the decoder reads without any effect on the samples. */
const INERT_CHUNKS = new Set(["fmt ", "fact", "LIST", "JUNK", "junk", "PAD ", "FLLR", "id3 ", "ID3 "]);

/** Temporary decodes are folders named by this prefix and the process id. */
const SPILL_PREFIX = "voxmetrics-rec-";
let spillsWatched = false;

/**
 * Delete this process's temporary decodes when it exits. A worker stopped at --call-timeout while
 * ffmpeg decodes never runs its own clean-up; the process's exit (any thread's module registers
 * this once) still removes what it left.
 */
function watchSpills(): void {
  if (spillsWatched) return;
  spillsWatched = true;
  process.once("exit", () => {
    const root = tmpdir();
    let names: string[] = [];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    for (const name of names) if (name.startsWith(`${SPILL_PREFIX}${process.pid}-`)) rmSync(join(root, name), { recursive: true, force: true });
  });
}

// The main thread watches from the start: the workers that decode may be stopped before they clean up.
if (isMainThread) watchSpills();

/** Where a plain PCM/float WAV keeps its samples. */
export interface WavLayout {
  channels: number;
  sampleRate: number;
  encoding: SampleEncoding;
  /** File offset of the first sample byte. */
  dataStart: number;
  /** Whole frames present. */
  frames: number;
  /** Bytes of one frame (all channels). */
  frameBytes: number;
  warnings: string[];
}

function fail(metric: DecodeError["metricMessage"], detail: string, name: string | undefined, code: DecodeError["code"] = "DECODE_ERROR"): never {
  throw new DecodeError(metric, detail, { file: name }, code);
}

function readAt(fd: number, into: Uint8Array, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

function encodingOf(tag: number, bits: number): SampleEncoding | null {
  if (tag === 1) return bits === 8 ? "pcm8" : bits === 16 ? "pcm16" : bits === 24 ? "pcm24" : bits === 32 ? "pcm32" : null;
  if (tag === 3) return bits === 32 ? "float32" : bits === 64 ? "float64" : null;
  return null;
}

type LayoutResult = { kind: "plain"; layout: WavLayout } | { kind: "compressed"; formatTag: number; bits: number } | { kind: "whole" };

/**
 * The layout of a RIFF/WAVE file of `fileSize` bytes, found as the default decoder finds it: the
 * top-level chunk list walked from offset 12 while 8 header bytes remain, odd sizes padded, the
 * first `fmt ` and the first `data` chunk taken. "compressed" for a format tag only ffmpeg decodes;
 * "whole" for anything this reader does not take in place (decodeAudio then decides, with its own
 * message when the file is bad).
 */
export function readWavLayout(fd: number, fileSize: number): LayoutResult {
  const head = new Uint8Array(12);
  if (readAt(fd, head, 0) < 12) return { kind: "whole" };
  const dv = new DataView(head.buffer);
  if (dv.getUint32(0, false) !== 0x52494646 || dv.getUint32(8, false) !== 0x57415645) return { kind: "whole" }; // RIFF … WAVE
  const chunkHead = new Uint8Array(8);
  const cv = new DataView(chunkHead.buffer);
  let fmt: { tag: number; rawTag: number; channels: number; sampleRate: number; bits: number } | null = null;
  for (let at = 12; at <= fileSize - 8; ) {
    readAt(fd, chunkHead, at);
    const id = String.fromCharCode(chunkHead[0], chunkHead[1], chunkHead[2], chunkHead[3]);
    const size = cv.getUint32(4, true);
    if (id === "fmt " && !fmt) {
      const body = new Uint8Array(28);
      const got = readAt(fd, body, at + 8);
      if (got < 16 || size < 16) return { kind: "whole" };
      const bv = new DataView(body.buffer);
      const rawTag = bv.getUint16(0, true);
      let tag = rawTag;
      if (tag === 0xfffe) {
        // The sub-format GUID's first 32 bits name the encoding (read only when the chunk holds it).
        if (size <= 20 || got < 28) return { kind: "whole" };
        tag = bv.getUint32(24, true);
      }
      fmt = { tag, rawTag, channels: bv.getUint16(2, true), sampleRate: bv.getUint32(4, true), bits: bv.getUint16(14, true) };
    } else if (id === "data") {
      if (!fmt) return { kind: "whole" };
      const encoding = encodingOf(fmt.tag, fmt.bits);
      if (!encoding) return fmt.tag === 1 || fmt.tag === 3 ? { kind: "whole" } : { kind: "compressed", formatTag: fmt.rawTag, bits: fmt.bits };
      if (fmt.channels < 1 || fmt.sampleRate < 1) return { kind: "whole" };
      const start = at + 8;
      const padded = size % 2 ? size + 1 : size;
      const available = Math.max(0, Math.min(start + padded, fileSize) - start);
      const present = STREAMING_SIZES.has(size) ? (size === 0 ? 0 : available) : Math.min(available, size);
      if (!STREAMING_SIZES.has(size) && present < size) return { kind: "whole" };
      const width = Math.ceil(fmt.bits / 8);
      const frameBytes = width * fmt.channels;
      const frames = Math.floor(present / frameBytes);
      if (frames === 0) return { kind: "whole" };
      const warnings = present % frameBytes !== 0 ? [`ignored ${present % frameBytes} trailing byte(s) of a partial frame`] : [];
      return { kind: "plain", layout: { channels: fmt.channels, sampleRate: fmt.sampleRate, encoding, dataStart: start, frames, frameBytes, warnings } };
    } else if (!INERT_CHUNKS.has(id)) {
      return { kind: "whole" };
    }
    at += 8 + size;
    if (at % 2) at += 1;
  }
  return { kind: "whole" };
}

/** The checks decodeAudio makes on a WAV header before converting anything (the same messages). */
function checkDeclaredHeader(fd: number, fileSize: number, limits: AudioLimits, name: string | undefined): void {
  const head = new Uint8Array(Math.min(fileSize, DECLARED_HEADER_BYTES));
  const got = readAt(fd, head, 0);
  const wav = readDeclaredWav(head.subarray(0, got));
  if (!wav) return;
  const problem = channelsProblem(wav.channels, limits) ?? sampleRateProblem(wav.sampleRate);
  if (problem) fail(DECODE_MESSAGES.notDecodable, `the WAV header declares ${problem}`, name, "LIMIT_EXCEEDED");
  const width = Math.ceil(wav.bitsPerSample / 8);
  if ((wav.formatTag === 1 || wav.formatTag === 3) && width > 0 && wav.channels > 0 && wav.sampleRate > 0 && wav.dataBytes !== null) {
    const seconds = Math.min(wav.dataBytes, fileSize) / (width * wav.channels) / wav.sampleRate;
    const tooLong = durationProblem(seconds, limits);
    if (tooLong) fail(DECODE_MESSAGES.notDecodable, `the WAV holds ${tooLong}`, name, "LIMIT_EXCEEDED");
  }
}

/** The checks decodeAudio makes on what decoding produced. */
function checkDecodedSize(channels: number, sampleRate: number, frames: number, limits: AudioLimits, name: string | undefined): void {
  const problem = channelsProblem(channels, limits) ?? sampleRateProblem(sampleRate) ?? durationProblem(frames / sampleRate, limits);
  if (problem) fail(DECODE_MESSAGES.notDecodable, `it decodes to ${problem}`, name, "LIMIT_EXCEEDED");
}

/** A plain WAV read from its file descriptor. */
class FileWavReader implements RecordingReader {
  readonly sampleRate: number;
  readonly channels: number;
  readonly frames: number;
  readonly streamed = true;
  readonly warnings: string[];
  private fd: number;
  private buffer = new Uint8Array(0);

  constructor(
    fd: number,
    private readonly layout: WavLayout,
    readonly format: string,
    private readonly name: string | undefined,
    private readonly chunkFrames: number,
  ) {
    this.fd = fd;
    this.sampleRate = layout.sampleRate;
    this.channels = layout.channels;
    this.frames = layout.frames;
    this.warnings = [...layout.warnings];
  }

  /** Bytes of frames [from, from + n) in a buffer reused between reads (16-byte aligned, at offset 0). */
  private bytesOf(from: number, n: number): Uint8Array {
    if (this.fd < 0) throw new Error("the recording reader was disposed");
    const want = n * this.layout.frameBytes;
    if (this.buffer.length < want) this.buffer = new Uint8Array(want);
    const bytes = this.buffer.subarray(0, want);
    const got = readAt(this.fd, bytes, this.layout.dataStart + from * this.layout.frameBytes);
    if (got < want) throw new DecodeError(DECODE_MESSAGES.notDecodable, `the file shrank while it was read (frame ${from + Math.floor(got / this.layout.frameBytes)} of ${this.frames} is gone)`, { file: this.name });
    return bytes;
  }

  /** int16 (and exact floats) of frames [from, from + n), the decoder's conversion; a non-finite float is decodeAudio's error. */
  private convert(from: number, n: number): { samples: Int16Array; floatChannels?: Float32Array[] } {
    const { encoding, channels, sampleRate } = this.layout;
    try {
      return bytesToInt16(this.bytesOf(from, n), encoding, n * channels, channels);
    } catch (e) {
      if (e instanceof NonFiniteSampleError) {
        const index = from * channels + e.index;
        const where = new NonFiniteSampleError(index, e.value);
        fail(DECODE_MESSAGES.notDecodable, `float WAV holds a non-finite value: ${where.message} at ${(Math.floor(index / channels) / sampleRate).toFixed(4)} s`, this.name);
      }
      throw e;
    }
  }

  *chunks(maxFrames?: number): Iterable<PcmChunk> {
    // The reader's own chunk size caps what the consumer asks for (a source may give fewer frames than asked).
    const size = Math.max(1, Math.floor(Math.min(maxFrames ?? Infinity, this.chunkFrames)));
    for (let at = 0; at < this.frames; ) {
      const n = Math.min(size, this.frames - at);
      if (this.layout.encoding === "pcm16") {
        // 16-bit samples are the file's bytes: a view on the read buffer (reused by the next chunk), no conversion.
        const bytes = this.bytesOf(at, n);
        yield { frames: n, samples: new Int16Array(bytes.buffer, bytes.byteOffset, n * this.channels) };
      } else {
        const { samples, floatChannels } = this.convert(at, n);
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
      if (encoding === "pcm16") {
        // The common case without a conversion array: little-endian int16 straight from the bytes.
        const bytes = this.bytesOf(at, n);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let k = 0, o = 2 * channel; k < n; k++, o += 2 * channels) into[o0 + k] = view.getInt16(o, true);
      } else {
        const { samples } = this.convert(at, n);
        for (let k = 0, o = channel; k < n; k++, o += channels) into[o0 + k] = samples[o];
      }
      at += n;
    }
  }

  dispose(): void {
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
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
 * Open a recording file for reading by frame range, in bounded memory for any PCM/float WAV and
 * (through one ffmpeg decode to a temporary WAV on disk) any other container. Throws DecodeError as
 * decodeAudio would for the same file. The caller disposes the reader.
 */
export function openRecordingReader(path: string, options: RecordingReaderOptions = {}): RecordingReader {
  const limits = resolveAudioLimits(options.limits);
  const name = options.name;
  const chunkFrames = Math.max(1, Math.floor(options.chunkFrames ?? DEFAULT_CHUNK_FRAMES));
  const whole = (bytes?: Uint8Array) => memoryRecordingReader(decodeAudio(bytes ?? readWhole(path), { compat: options.compat, name, limits }), chunkFrames);
  if (options.compat === "deepeval") return whole();
  const fd = openSync(path, "r");
  let handedOver = false;
  try {
    const fileSize = fstatSync(fd).size;
    if (fileSize === 0) return whole();
    checkDeclaredHeader(fd, fileSize, limits, name);
    const head = new Uint8Array(Math.min(fileSize, 65536));
    readAt(fd, head, 0);
    if (!isWaveFile(head)) return decodeThroughFfmpeg(path, head, null, limits, options, "not a RIFF/WAVE file", chunkFrames);
    const found = readWavLayout(fd, fileSize);
    if (found.kind === "whole") return whole();
    if (found.kind === "compressed") {
      const what = `WAV format tag ${found.formatTag} with ${found.bits}-bit samples`;
      return decodeThroughFfmpeg(path, head, { fd, fileSize }, limits, options, what, chunkFrames);
    }
    const { layout } = found;
    checkDecodedSize(layout.channels, layout.sampleRate, layout.frames, limits, name);
    const reader = new FileWavReader(fd, layout, `wav/${layout.encoding}`, name, chunkFrames);
    handedOver = true;
    if (layout.encoding === "float32" || layout.encoding === "float64") {
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
    if (!handedOver) closeSync(fd);
  }
}

/**
 * Open a 16-bit PCM WAV the way `--compat deepeval` reads it (Python's `wave`: the data chunk's
 * whole frames, bounded by the RIFF chunk and the file) for reading in place. The header walk is
 * made on the file's first megabyte with the decoder's own parser; a file it cannot read there
 * whole, or whose samples decodeAudio would refuse, is decoded whole by decodeAudio instead (so
 * its error is decodeAudio's).
 */
export function openCompatRecordingReader(path: string, options: Omit<RecordingReaderOptions, "compat"> = {}): RecordingReader {
  const limits = resolveAudioLimits(options.limits);
  const name = options.name;
  const chunkFrames = Math.max(1, Math.floor(options.chunkFrames ?? DEFAULT_CHUNK_FRAMES));
  const whole = () => memoryRecordingReader(decodeAudio(readWhole(path), { compat: "deepeval", name, limits }), chunkFrames);
  const fd = openSync(path, "r");
  let handedOver = false;
  try {
    const fileSize = fstatSync(fd).size;
    if (fileSize < 12) return whole();
    checkDeclaredHeader(fd, fileSize, limits, name);
    const head = headOf(fd, fileSize);
    let wav;
    try {
      wav = readCompatWav(head);
    } catch {
      return whole();
    }
    const frameSize = wav.channels * wav.sampleWidth;
    if (wav.sampleWidth !== 2 || wav.sampleRate === 0 || wav.data.length === 0) return whole();
    const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const start = wav.data.byteOffset - head.byteOffset;
    const declared = hv.getUint32(start - 4, true);
    const riffEnd = 8 + hv.getUint32(4, true);
    // Python's chunk reads stop at the data chunk's whole frames, the RIFF chunk's end and the file's end.
    const present = Math.max(0, Math.min(start + Math.floor(declared / frameSize) * frameSize, riffEnd, fileSize) - start);
    const frames = Math.floor(present / 2 / wav.channels);
    if (present % 2 !== 0 || frames === 0) return whole();
    checkDecodedSize(wav.channels, wav.sampleRate, frames, limits, name);
    handedOver = true;
    return new FileWavReader(fd, { channels: wav.channels, sampleRate: wav.sampleRate, encoding: "pcm16", dataStart: start, frames, frameBytes: frameSize, warnings: [] }, "wav/pcm16", name, chunkFrames);
  } finally {
    if (!handedOver) closeSync(fd);
  }
}

function readWhole(path: string): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(size);
    return bytes.subarray(0, readAt(fd, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

function headOf(fd: number, fileSize: number): Uint8Array {
  const head = new Uint8Array(Math.min(fileSize, DECLARED_HEADER_BYTES));
  return head.subarray(0, readAt(fd, head, 0));
}

/**
 * decodeAudio's ffmpeg path with its output on disk: the same arguments, bounds (`-t` past the
 * budget, the decode timeout, 4 GB of output) and messages; the temporary WAV is then read in place.
 */
function decodeThroughFfmpeg(
  path: string,
  head: Uint8Array,
  wav: { fd: number; fileSize: number } | null,
  limits: AudioLimits,
  options: RecordingReaderOptions,
  what: string,
  chunkFrames: number,
): RecordingReader {
  const name = options.name;
  const ffmpeg = findFfmpeg();
  if (!ffmpeg) fail(DECODE_MESSAGES.notDecodable, `${what}; decoding it needs ffmpeg, which was not found (set $FFMPEG_PATH or install ffmpeg)`, name, "FFMPEG_MISSING");
  const fileSize = statSync(path).size;
  const declared = wav ? readDeclaredWav(headOf(wav.fd, wav.fileSize)) : readDeclaredWav(head.subarray(0, Math.min(head.length, DECLARED_HEADER_BYTES)));
  const declaredSeconds = declared && declared.byteRate > 0 && declared.dataBytes !== null ? Math.min(declared.dataBytes, fileSize) / declared.byteRate : null;
  const declaredTooLong = declaredSeconds === null ? null : durationProblem(declaredSeconds, limits);
  if (declaredTooLong) fail(DECODE_MESSAGES.notDecodable, `${what}; the WAV header declares ${declaredTooLong}`, name, "LIMIT_EXCEEDED");
  const budget = decodeBudgetSeconds(declaredSeconds, limits);

  watchSpills();
  const run = ffmpegToWavFile(ffmpeg, path, { maxSeconds: budget, timeoutMs: limits.decodeTimeoutSeconds * 1000 }, `${SPILL_PREFIX}${process.pid}-`);
  if (!run.ok) fail(DECODE_MESSAGES.notDecodable, `${what}; ${run.message}`, name, run.code);
  const cleanUp = () => rmSync(run.dir, { recursive: true, force: true });
  let fd = -1;
  try {
    const outSize = statSync(run.wav).size;
    fd = openSync(run.wav, "r");
    // The open descriptor keeps the decoded samples readable; the folder goes now, so nothing is left
    // behind however the process ends (the system frees the file's space when the descriptor closes).
    cleanUp();
    const found = readWavLayout(fd, outSize);
    if (found.kind !== "plain") fail(DECODE_MESSAGES.notDecodable, `${what}; ffmpeg's output is not a 16-bit PCM WAV`, name);
    const { layout } = found;
    if (layout.frames / layout.sampleRate > budget) {
      const why = declaredSeconds === null || budget >= limits.maxAudioSeconds ? `it decodes to more than the limit of ${limits.maxAudioSeconds} s (--max-audio-seconds)` : `it decodes to more than ${formatSeconds(budget)}, but its header declares ${formatSeconds(declaredSeconds)} (a decompression bomb?)`;
      fail(DECODE_MESSAGES.notDecodable, `${what}; ${why}`, name, "LIMIT_EXCEEDED");
    }
    checkDecodedSize(layout.channels, layout.sampleRate, layout.frames, limits, name);
    const { container } = sniffAudio(head);
    const reader = new FileWavReader(fd, layout, `ffmpeg/${container === "other" ? "audio" : container}`, name, chunkFrames);
    fd = -1;
    return reader;
  } catch (e) {
    if (fd >= 0) closeSync(fd);
    cleanUp();
    throw e;
  }
}
