// Measures one audio file for `voxmetrics analyze`: deepeval's parity set on the mono mix, the standards set on all channels and on each.
//
// A file named by its path is never held: it is opened as a PcmSource (read from disk in bounded
// chunks, or decoded once by ffmpeg into a temporary file) and every measurement reads the chunks.
import { measureAcoustics, measureLoudness, standardsSampleRateProblem, type AcousticsBlock, type LoudnessBlock } from "../analysis/acoustics.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "../analysis/acoustics-options.js";
import { assembleParityMeasurements } from "../analysis/parity.js";
import type { ClipMeasurements } from "../analysis/types.js";
import { DecodeError, decodeAudio, openPcmSource, resolveAudioLimits, type AudioLimits, type PcmSource } from "../audio/index.js";
import { ClipKernels, type PlanarKernels } from "../dsp/clip-kernels.js";
import type { ParityFrames } from "../dsp/parity.js";
import { withArena } from "../dsp/wasm.js";
import { measureParityStream } from "../dsp/parity-stream.js";
import { measureStandardsStream } from "../analysis/acoustics-stream.js";
import { regularFileProblem } from "../ingest/file-kind.js";
import type { CompatMode } from "../model/codec.js";
import { toVoxError, VoxError, type ErrorCode } from "../model/errors.js";

/** Which measurements `analyze` computes: deepeval's parity set, the loudness part of the standards set, the whole standards set, or both sets. */
export const MEASUREMENT_SETS = ["parity", "loudness", "standards", "all"] as const;
/** Which measurements analyzeFile computes. */
export type MeasurementSet = (typeof MEASUREMENT_SETS)[number];

/** Every option of file analysis; defaults in DEFAULT_ANALYZE_FILE_OPTIONS. */
export interface AnalyzeFileOptions {
  /**
   * Which measurements to compute.
   * @defaultValue "all"
   */
  set: MeasurementSet;
  /**
   * Audio acceptance for the parity set (`deepeval`: exactly what deepeval accepts).
   * @defaultValue "voxmetrics"
   */
  compat: CompatMode;
  /**
   * Standards-set options (acoustics.md defaults otherwise).
   * @defaultValue {} (DEFAULT_ACOUSTICS_OPTIONS)
   */
  acoustics: Partial<AcousticsOptions>;
  /**
   * The decoded-size budget per file (`--max-audio-seconds`, `--max-channels`).
   * @defaultValue {} (DEFAULT_AUDIO_LIMITS)
   */
  limits: Partial<AudioLimits>;
}

/** Defaults of analyzeFile: both sets, voxmetrics acceptance, the default audio limits. */
export const DEFAULT_ANALYZE_FILE_OPTIONS: Readonly<AnalyzeFileOptions> = Object.freeze({ set: "all", compat: "voxmetrics", acoustics: Object.freeze({}), limits: Object.freeze({}) } satisfies AnalyzeFileOptions);

/** Defaults overlaid with `partial`; an unknown set or mode is an INVALID_OPTION naming the field. */
export function resolveAnalyzeFileOptions(partial: Partial<AnalyzeFileOptions> = {}): AnalyzeFileOptions {
  const d = DEFAULT_ANALYZE_FILE_OPTIONS;
  const o: AnalyzeFileOptions = { set: partial.set ?? d.set, compat: partial.compat ?? d.compat, acoustics: partial.acoustics ?? d.acoustics, limits: resolveAudioLimits(partial.limits ?? d.limits) };
  if (!MEASUREMENT_SETS.includes(o.set)) throw new VoxError("INVALID_OPTION", `must be one of ${MEASUREMENT_SETS.join(", ")}, got ${String(o.set)}`, { field: "set" });
  if (o.compat !== "voxmetrics" && o.compat !== "deepeval") throw new VoxError("INVALID_OPTION", `must be voxmetrics or deepeval, got ${String(o.compat)}`, { field: "compat" });
  return o;
}

/** One line of `voxmetrics analyze --json` (interfaces.md). */
/** A file that was decoded and measured (`status: "ok"`). */
export interface AnalyzeFileOk {
  /** The file as named (the path given, or `options.path` for bytes). */
  path: string;
  status: "ok";
  error: null;
  /** The decoded format, e.g. `wav/pcm16`, `flac`. */
  format: string;
  sample_rate: number;
  channels: number;
  /** Seconds. */
  duration: number;
  /** deepeval's parity set (sets `parity` and `all`). */
  measurements?: ClipMeasurements;
  /** The standards set over all channels: the whole block (`standards`, `all`) or its loudness part (`loudness`). */
  acoustics?: AcousticsBlock | LoudnessBlock;
  /** The same per channel, for files with several. */
  channels_acoustics?: Array<AcousticsBlock | LoudnessBlock>;
}

/** A file that could not be read or decoded (`status: "error"`); the message names the file. */
export interface AnalyzeFileError {
  path: string;
  status: "error";
  error: { code: ErrorCode; message: string };
  /** Known when the file decoded but could not be measured (a sample rate outside the standards set's range); null otherwise. */
  format: string | null;
  sample_rate: number | null;
  channels: number | null;
  duration: number | null;
  measurements?: undefined;
  acoustics?: undefined;
  channels_acoustics?: undefined;
}

/** What `analyzeFile` returns: narrow on `status`. */
export type AnalyzeFileResult = AnalyzeFileOk | AnalyzeFileError;

/** Read and measure the audio file at `path` (in bounded memory: the file is read in chunks, never whole); a file that cannot be read or decoded becomes an error result naming it. */
export function analyzeFileAt(path: string, options: Partial<AnalyzeFileOptions> = {}): AnalyzeFileResult {
  const problem = regularFileProblem(path);
  if (problem && problem.code === "UNSUPPORTED_INPUT") {
    return { path, status: "error", error: { code: problem.code, message: `${path}: ${problem.why}` }, format: null, sample_rate: null, channels: null, duration: null };
  }
  const resolved = resolveAnalyzeFileOptions({ set: options.set, compat: options.compat, acoustics: options.acoustics, limits: options.limits });
  const acoustics = resolved.set === "parity" ? null : resolveAcousticsOptions(resolved.acoustics);
  const base = { path, format: null, sample_rate: null, channels: null, duration: null };
  let source;
  try {
    source = openPcmSource(path, { compat: resolved.compat, name: path, limits: resolved.limits });
  } catch (e) {
    if (e instanceof DecodeError) return { ...base, status: "error", error: { code: e.code, message: e.message } };
    if (e instanceof VoxError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "";
    const message = `${path}: cannot read the file${code ? ` (${code})` : ""}`;
    return { ...base, status: "error", error: { code: "IO_ERROR", message } };
  }
  try {
    return measureSource(source, path, resolved, acoustics);
  } catch (e) {
    const error = toVoxError(e, { file: path });
    return { ...base, status: "error", error: { code: error.code, message: error.message } };
  } finally {
    source.dispose();
  }
}

/**
 * Measure an audio file: a path (read from disk) or its bytes (then `options.path` names it in the
 * result). A file that cannot be read or decoded becomes an error result naming it.
 *
 * @example
 * ```ts
 * const r = analyzeFile("clip.wav", { set: "standards" });
 * if (r.status === "ok") console.log(r.duration, r.acoustics?.integrated_lufs);
 * ```
 */
export function analyzeFile(file: string | Uint8Array, options: Partial<AnalyzeFileOptions> & { path?: string } = {}): AnalyzeFileResult {
  if (typeof file === "string") return analyzeFileAt(file, options);
  return analyzeBytes(file, { ...options, path: options.path ?? "<bytes>" });
}

function analyzeBytes(bytes: Uint8Array, options: Partial<AnalyzeFileOptions> & { path: string }): AnalyzeFileResult {
  const { path } = options;
  const resolved = resolveAnalyzeFileOptions({ set: options.set, compat: options.compat, acoustics: options.acoustics, limits: options.limits });
  const acoustics = resolved.set === "parity" ? null : resolveAcousticsOptions(resolved.acoustics);
  try {
    return measureBytes(bytes, path, resolved, acoustics);
  } catch (e) {
    const error = toVoxError(e, { file: path });
    return { path, status: "error", error: { code: error.code, message: error.message }, format: null, sample_rate: null, channels: null, duration: null };
  }
}

/** Bytes already in memory: decoded whole and measured in one arena session (the file's PCM copied into WebAssembly memory once, plus its exact floats). */
function measureBytes(bytes: Uint8Array, path: string, { set, compat, limits }: AnalyzeFileOptions, acoustics: AcousticsOptions | null): AnalyzeFileResult {
  const base = { path, format: null, sample_rate: null, channels: null, duration: null };
  let decoded;
  try {
    decoded = decodeAudio(bytes, { compat, name: path, limits });
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { ...base, status: "error", error: { code: e.code, message: e.message } };
  }
  const rateProblem = acoustics ? standardsSampleRateProblem(decoded.sampleRate) : null;
  if (rateProblem) {
    const message = `${path}: ${rateProblem} (--set parity measures it)`;
    return { path, status: "error", error: { code: "UNSUPPORTED_INPUT", message }, format: decoded.format, sample_rate: decoded.sampleRate, channels: decoded.channels, duration: decoded.frames / decoded.sampleRate };
  }
  const result: AnalyzeFileOk = {
    path,
    status: "ok",
    error: null,
    format: decoded.format,
    sample_rate: decoded.sampleRate,
    channels: decoded.channels,
    duration: decoded.frames / decoded.sampleRate,
  };
  withArena((arena) => {
    const clip = new ClipKernels(arena, decoded);
    if (set === "parity" || set === "all") result.measurements = assembleParityMeasurements(clip.parityFrames());
    if (acoustics) {
      const planar = clip.planar();
      const measure = (p: PlanarKernels) => (set === "loudness" ? measureLoudness(p, acoustics) : measureAcoustics(p, acoustics));
      result.acoustics = measure(planar);
      if (planar.channels > 1) result.channels_acoustics = Array.from({ length: planar.channels }, (_, c) => measure(planar.channel(c)));
    }
  });
  return result;
}

/** The measurements of one opened recording; a DecodeError met while reading it (a non-finite float sample) is the file's error result. */
function measureSource(source: PcmSource, path: string, { set }: AnalyzeFileOptions, acoustics: AcousticsOptions | null): AnalyzeFileResult {
  const base = { path, format: null, sample_rate: null, channels: null, duration: null };
  const frames = source.frames ?? countFrames(source);
  try {
    const rateProblem = acoustics ? standardsSampleRateProblem(source.sampleRate) : null;
    if (rateProblem) {
      // decodeAudio refuses a float WAV holding NaN or ±Inf before anything is measured: read it through first.
      if (/^wav\/float/.test(source.format)) countFrames(source);
      const message = `${path}: ${rateProblem} (--set parity measures it)`;
      return { path, status: "error", error: { code: "UNSUPPORTED_INPUT", message }, format: source.format, sample_rate: source.sampleRate, channels: source.channels, duration: frames / source.sampleRate };
    }
    const result: AnalyzeFileOk = {
      path,
      status: "ok",
      error: null,
      format: source.format,
      sample_rate: source.sampleRate,
      channels: source.channels,
      duration: frames / source.sampleRate,
    };
    // The standards set is measured first: its per-frame summaries are typed arrays given back when it
    // ends, where the parity set's leave the JS heap grown; in this order the two peaks do not add up.
    // (The record keeps its field order: measurements, then acoustics.)
    const measured = acoustics ? measureStandardsStream(source, acoustics, { set: set === "loudness" ? "loudness" : "standards", perChannel: true }) : null;
    if (set === "parity" || set === "all") result.measurements = assembleParityMeasurements(measureParityStream(source));
    if (measured) {
      result.acoustics = measured.acoustics;
      if (measured.channels) result.channels_acoustics = measured.channels;
    }
    return result;
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { ...base, status: "error", error: { code: e.code, message: e.message } };
  }
}

function countFrames(source: PcmSource): number {
  let frames = 0;
  for (const chunk of source.chunks()) frames += chunk.frames;
  return frames;
}
