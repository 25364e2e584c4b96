// Measures one audio file for `voxmetrics analyze`: deepeval's parity set on the mono mix, the standards set on all channels.
import { analyzeAcoustics, analyzeLoudness, type AcousticsOptions } from "./analysis/acoustics.js";
import { analyzeParity } from "./analysis/parity.js";
import type { ClipMeasurements } from "./analysis/types.js";
import { DecodeError, decodeAudio, downmixTruncating } from "./audio/index.js";
import type { CompatMode } from "./model/codec.js";
import { convertToFloatPlanar } from "./dsp/recording-kernels.js";

export type MeasurementSet = "parity" | "loudness" | "standards" | "all";

export interface AnalyzeFileOptions {
  /** Shown in the result. */
  path: string;
  /** @defaultValue "all" */
  set?: MeasurementSet;
  /** Applies to the parity set. @defaultValue "voxmetrics" */
  compat?: CompatMode;
  /** Standards-set options (acoustics.md defaults otherwise). */
  acoustics?: Partial<AcousticsOptions>;
}

/** One line of `voxmetrics analyze --json` (interfaces.md). */
export interface AnalyzeFileResult {
  path: string;
  status: "ok" | "error";
  error: { code: string; message: string } | null;
  format: string | null;
  sample_rate: number | null;
  channels: number | null;
  duration: number | null;
  measurements?: ClipMeasurements;
  acoustics?: unknown;
  channels_acoustics?: unknown[];
}

/** Decode and measure a file's bytes; decode failures become an error result naming the file. */
export function analyzeFile(bytes: Uint8Array, options: AnalyzeFileOptions): AnalyzeFileResult {
  const set = options.set ?? "all";
  const base = { path: options.path, format: null, sample_rate: null, channels: null, duration: null };
  let decoded;
  try {
    decoded = decodeAudio(bytes, { compat: options.compat, name: options.path });
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { ...base, status: "error", error: { code: e.code, message: e.message } };
  }
  const result: AnalyzeFileResult = {
    path: options.path,
    status: "ok",
    error: null,
    format: decoded.format,
    sample_rate: decoded.sampleRate,
    channels: decoded.channels,
    duration: decoded.frames / decoded.sampleRate,
  };
  if (set === "parity" || set === "all") {
    result.measurements = analyzeParity(downmixTruncating(decoded.samples, decoded.channels), decoded.sampleRate);
  }
  if (set === "loudness" || set === "standards" || set === "all") {
    const planar = convertToFloatPlanar(decoded);
    const measure = (channels: Float32Array[]) =>
      set === "loudness" ? analyzeLoudness(channels, decoded.sampleRate, options.acoustics) : analyzeAcoustics(channels, decoded.sampleRate, options.acoustics);
    result.acoustics = measure(planar);
    if (planar.length > 1) result.channels_acoustics = planar.map((c) => measure([c]));
  }
  return result;
}
