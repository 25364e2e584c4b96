// Decodes one clip's bytes: deepeval's exact acceptance under --compat deepeval, everything decodable otherwise.
import { createRequire } from "node:module";
import type * as WavefileModule from "wavefile";
import type { CompatMode } from "../model/codec.js";
import { bytesToInt16, NonFiniteSampleError, pcm16Samples, type SampleEncoding } from "./convert.js";
import { DECODE_MESSAGES, DecodeError } from "./errors.js";
import { ffmpegToWav, findFfmpeg } from "./ffmpeg.js";
import { channelsProblem, decodeBudgetSeconds, durationProblem, formatSeconds, readDeclaredWav, resolveAudioLimits, sampleRateProblem, type AudioLimits } from "./limits.js";
import { isWaveFile, sniffAudio } from "./sniff.js";
import type { DecodedAudio } from "./types.js";
import { CompatWavError, readCompatWav } from "./wav-compat.js";

/** Options of decodeAudio: audio acceptance (compat) and the name used in error messages. */
export interface DecodeOptions {
  compat?: CompatMode;
  /** Name used in messages (file path or `turns[3].audio`). */
  name?: string;
  /** The decoded-size budget (DEFAULT_AUDIO_LIMITS for what is not given). */
  limits?: Partial<AudioLimits>;
}

/** Data chunk sizes that mean "to the end of the file" (a WAV written to a pipe). */
export const STREAMING_SIZES: ReadonlySet<number> = new Set([0, 0xffffffff]);

/**
 * wavefile, loaded on first use through `require`: most WAVs take the direct 16-bit path and never
 * need it, and importing a CommonJS package from an ES module makes Node scan its whole source for
 * export names in every worker thread.
 */
let wavefileModule: typeof WavefileModule | undefined;
function wavefile(): typeof WavefileModule {
  return (wavefileModule ??= createRequire(import.meta.url)("wavefile") as typeof WavefileModule);
}

/** Decode a clip; throws DecodeError carrying deepeval's message and an exact detail. */
export function decodeAudio(bytes: Uint8Array, options: DecodeOptions = {}): DecodedAudio {
  const limits = resolveAudioLimits(options.limits);
  checkDeclared(bytes.subarray(0, Math.min(bytes.length, DECLARED_HEADER_BYTES)), bytes.length, limits, options);
  const decoded = options.compat === "deepeval" ? decodeCompat(bytes, options) : decodeWide(bytes, { ...options, limits });
  checkDecoded(decoded, limits, options);
  return decoded;
}

/**
 * The budget checked on the header alone, before any sample is converted: a WAV declaring more
 * channels than allowed, a rate no kernel takes, or (for PCM and float, whose length the header
 * fixes) more audio than allowed, is refused at once. `head` is the file's first DECLARED_HEADER_BYTES
 * (or all of it), `fileLength` its whole length.
 */
export function checkDeclared(head: Uint8Array, fileLength: number, limits: AudioLimits, options: DecodeOptions): void {
  const wav = readDeclaredWav(head);
  if (!wav) return;
  const problem = channelsProblem(wav.channels, limits) ?? sampleRateProblem(wav.sampleRate);
  if (problem) fail(DECODE_MESSAGES.notDecodable, `the WAV header declares ${problem}`, options, "LIMIT_EXCEEDED");
  const width = Math.ceil(wav.bitsPerSample / 8);
  if ((wav.formatTag === 1 || wav.formatTag === 3) && width > 0 && wav.channels > 0 && wav.sampleRate > 0 && wav.dataBytes !== null) {
    const present = Math.min(wav.dataBytes, fileLength);
    const seconds = present / (width * wav.channels) / wav.sampleRate;
    const tooLong = durationProblem(seconds, limits);
    if (tooLong) fail(DECODE_MESSAGES.notDecodable, `the WAV holds ${tooLong}`, options, "LIMIT_EXCEEDED");
  }
}

/** The budget checked on what decoding produced (any container). */
export function checkDecoded(d: Pick<DecodedAudio, "channels" | "sampleRate" | "frames">, limits: AudioLimits, options: DecodeOptions): void {
  const problem = channelsProblem(d.channels, limits) ?? sampleRateProblem(d.sampleRate) ?? durationProblem(d.frames / d.sampleRate, limits);
  if (problem) fail(DECODE_MESSAGES.notDecodable, `it decodes to ${problem}`, options, "LIMIT_EXCEEDED");
}

/** Header bytes examined for the declared format (the fmt and data chunk headers sit in the first few KB of any sane WAV). */
export const DECLARED_HEADER_BYTES = 1 << 20;

/** Throw the DecodeError decodeAudio throws: deepeval's message for the metrics, `detail` naming the file (exported as failDecode). */
function fail(metric: DecodeError["metricMessage"], detail: string, options: DecodeOptions, code: DecodeError["code"] = "DECODE_ERROR"): never {
  throw new DecodeError(metric, detail, { file: options.name }, code);
}

export { fail as failDecode };

/** `--compat deepeval`: 16-bit PCM, format tag 1, Python `wave` semantics (voice-metrics.md §2.2–2.4). */
function decodeCompat(bytes: Uint8Array, options: DecodeOptions): DecodedAudio {
  let wav;
  try {
    wav = readCompatWav(bytes);
  } catch (e) {
    const why = e instanceof CompatWavError ? e.message : String(e);
    fail(DECODE_MESSAGES.notDecodable, `not a 16-bit PCM WAV deepeval can read (${why})`, options);
  }
  if (wav.sampleWidth !== 2) {
    fail(DECODE_MESSAGES.notDecodable, `Expected 16-bit PCM WAV (sample width 2), got ${wav.sampleWidth}.`, options);
  }
  if (wav.data.length % 2 !== 0) {
    fail(DECODE_MESSAGES.oddBytes, `truncated data chunk leaves ${wav.data.length} bytes (${DECODE_MESSAGES.oddBytes})`, options);
  }
  const samples = pcm16Samples(wav.data);
  const frames = Math.floor(samples.length / wav.channels);
  if (wav.sampleRate === 0 || frames === 0) {
    fail(DECODE_MESSAGES.noSamples, wav.sampleRate === 0 ? "sample rate is 0" : "the data chunk holds no samples", options);
  }
  return { sampleRate: wav.sampleRate, channels: wav.channels, frames, samples, format: "wav/pcm16", warnings: [] };
}

interface WavHeader {
  audioFormat: number;
  numChannels: number;
  sampleRate: number;
  bitsPerSample: number;
  subformat?: number[];
}

const GUID_PCM = 1;
const GUID_FLOAT = 3;

const FOURCC_FMT = 0x666d7420; // "fmt "
const FOURCC_DATA = 0x64617461; // "data"

/**
 * The common case read directly: a well-formed RIFF/WAVE of 16-bit PCM (format tag 1) whose RIFF size
 * matches the file, with one fmt chunk, then one data chunk that is fully present and holds whole
 * frames, and only even-sized chunks. The samples are a view on `bytes` when the data is 2-byte aligned (no copy, no per-sample
 * JavaScript: bulk scoring reads thousands of such files). Anything else returns null and takes the
 * general wavefile path, which gives the same samples for these files (a property test checks it).
 */
export function decodeCanonicalPcm16(bytes: Uint8Array): DecodedAudio | null {
  const n = bytes.length;
  if (n < 44) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, n);
  if (dv.getUint32(0, false) !== 0x52494646 || dv.getUint32(8, false) !== 0x57415645) return null; // RIFF … WAVE
  if (dv.getUint32(4, true) !== n - 8) return null;
  let channels = 0;
  let sampleRate = 0;
  let dataAt = -1;
  let dataSize = 0;
  for (let at = 12; at < n; ) {
    if (at + 8 > n) return null;
    const id = dv.getUint32(at, false);
    const size = dv.getUint32(at + 4, true);
    const end = at + 8 + size;
    if (end > n || (size & 1) !== 0) return null;
    if (id === FOURCC_FMT) {
      if (channels !== 0 || dataAt >= 0 || size < 16) return null;
      if (dv.getUint16(at + 8, true) !== 1 || dv.getUint16(at + 22, true) !== 16) return null;
      channels = dv.getUint16(at + 10, true);
      sampleRate = dv.getUint32(at + 12, true);
      if (channels < 1 || sampleRate < 1) return null;
    } else if (id === FOURCC_DATA) {
      if (channels === 0 || dataAt >= 0) return null;
      dataAt = at + 8;
      dataSize = size;
    }
    at = end;
  }
  if (dataAt < 0 || dataSize === 0 || dataSize % (2 * channels) !== 0) return null;
  const samples = pcm16Samples(bytes.subarray(dataAt, dataAt + dataSize));
  return { sampleRate, channels, frames: samples.length / channels, samples, floatChannels: undefined, format: "wav/pcm16", warnings: [] };
}

/** Default mode: any PCM/float WAV through wavefile, anything else through ffmpeg. */
function decodeWide(bytes: Uint8Array, options: DecodeOptions): DecodedAudio {
  if (bytes.length === 0) fail(DECODE_MESSAGES.noSamples, "the file is empty (0 bytes)", options);
  return decodeCanonicalPcm16(bytes) ?? decodeWideGeneral(bytes, options);
}

/** The general default-mode path (wavefile, then ffmpeg); exported for the tests that compare it with the fast path. */
export function decodeWideGeneral(bytes: Uint8Array, options: DecodeOptions = {}): DecodedAudio {
  if (bytes.length === 0) fail(DECODE_MESSAGES.noSamples, "the file is empty (0 bytes)", options);
  if (!isWaveFile(bytes)) return decodeWithFfmpeg(bytes, options, "not a RIFF/WAVE file");

  const wav = new (wavefile().WaveFile)();
  try {
    wav.fromBuffer(bytes, true);
  } catch (e) {
    fail(DECODE_MESSAGES.notDecodable, `unreadable WAV: ${(e as Error).message}`, options);
  }
  const fmt = wav.fmt as WavHeader;
  const tag = fmt.audioFormat === 0xfffe && fmt.subformat ? fmt.subformat[0] : fmt.audioFormat;
  const encoding = sampleEncoding(tag, fmt.bitsPerSample);
  if (!encoding) return decodeWithFfmpeg(bytes, options, `WAV format tag ${fmt.audioFormat} with ${fmt.bitsPerSample}-bit samples`);
  if (fmt.numChannels < 1) fail(DECODE_MESSAGES.notDecodable, "the fmt chunk declares 0 channels", options);
  if (fmt.sampleRate < 1) fail(DECODE_MESSAGES.noSamples, "the fmt chunk declares a sample rate of 0", options);

  const data = wav.data as { chunkSize: number; samples: Uint8Array };
  // wavefile's range includes the pad byte of an odd-sized chunk; the declared size bounds the samples.
  const present = STREAMING_SIZES.has(data.chunkSize) ? data.samples.length : Math.min(data.samples.length, data.chunkSize);
  if (!STREAMING_SIZES.has(data.chunkSize) && present < data.chunkSize) {
    fail(DECODE_MESSAGES.notDecodable, `truncated WAV: the data chunk declares ${data.chunkSize} bytes but only ${present} are present`, options);
  }
  const warnings: string[] = [];
  const width = Math.ceil(fmt.bitsPerSample / 8);
  const frameBytes = width * fmt.numChannels;
  const frames = Math.floor(present / frameBytes);
  if (present % frameBytes !== 0) warnings.push(`ignored ${present % frameBytes} trailing byte(s) of a partial frame`);
  if (frames === 0) fail(DECODE_MESSAGES.noSamples, "the data chunk holds no samples (zero-length audio)", options);
  const count = frames * fmt.numChannels;
  let converted;
  try {
    converted = bytesToInt16(data.samples, encoding, count, fmt.numChannels);
  } catch (e) {
    if (e instanceof NonFiniteSampleError) {
      fail(DECODE_MESSAGES.notDecodable, `float WAV holds a non-finite value: ${e.message} at ${(Math.floor(e.index / fmt.numChannels) / fmt.sampleRate).toFixed(4)} s`, options);
    }
    throw e;
  }
  return {
    sampleRate: fmt.sampleRate,
    channels: fmt.numChannels,
    frames,
    samples: converted.samples,
    floatChannels: converted.floatChannels,
    format: `wav/${encoding}`,
    warnings,
  };
}

/** The sample encoding of a WAV format tag (PCM 1 or IEEE float 3) and bit depth, or null when only ffmpeg decodes it. */
export function sampleEncoding(tag: number, bits: number): SampleEncoding | null {
  if (tag === GUID_PCM) {
    if (bits === 8) return "pcm8";
    if (bits === 16) return "pcm16";
    if (bits === 24) return "pcm24";
    if (bits === 32) return "pcm32";
  }
  if (tag === GUID_FLOAT) {
    if (bits === 32) return "float32";
    if (bits === 64) return "float64";
  }
  return null;
}

function decodeWithFfmpeg(bytes: Uint8Array, options: DecodeOptions, what: string): DecodedAudio {
  const ffmpeg = findFfmpeg();
  if (!ffmpeg) {
    fail(DECODE_MESSAGES.notDecodable, `${what}; decoding it needs ffmpeg, which was not found (set $FFMPEG_PATH or install ffmpeg)`, options, "FFMPEG_MISSING");
  }
  // A compressed WAV declares its length (data size / average byte rate): decoding may not run far past it.
  const limits = resolveAudioLimits(options.limits);
  const declared = readDeclaredWav(bytes.subarray(0, Math.min(bytes.length, DECLARED_HEADER_BYTES)));
  const declaredSeconds = declared && declared.byteRate > 0 && declared.dataBytes !== null ? Math.min(declared.dataBytes, bytes.length) / declared.byteRate : null;
  const declaredTooLong = declaredSeconds === null ? null : durationProblem(declaredSeconds, limits);
  if (declaredTooLong) fail(DECODE_MESSAGES.notDecodable, `${what}; the WAV header declares ${declaredTooLong}`, options, "LIMIT_EXCEEDED");
  const budget = decodeBudgetSeconds(declaredSeconds, limits);
  const run = ffmpegToWav(ffmpeg, bytes, { maxSeconds: budget, timeoutMs: limits.decodeTimeoutSeconds * 1000 });
  if (!run.ok) fail(DECODE_MESSAGES.notDecodable, `${what}; ${run.message}`, options, run.code);
  const decoded = decodeWide(run.wav, options);
  if (decoded.frames / decoded.sampleRate > budget) {
    const why = declaredSeconds === null || budget >= limits.maxAudioSeconds ? `it decodes to more than the limit of ${limits.maxAudioSeconds} s (--max-audio-seconds)` : `it decodes to more than ${formatSeconds(budget)}, but its header declares ${formatSeconds(declaredSeconds)} (a decompression bomb?)`;
    fail(DECODE_MESSAGES.notDecodable, `${what}; ${why}`, options, "LIMIT_EXCEEDED");
  }
  const { container } = sniffAudio(bytes);
  return { ...decoded, format: `ffmpeg/${container === "other" ? "audio" : container}` };
}
