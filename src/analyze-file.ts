// Measures one audio file for `voxmetrics analyze`: deepeval's parity set on the mono mix, the standards set on all channels.
import { measureAcoustics, measureLoudness } from "./analysis/acoustics.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "./analysis/acoustics-options.js";
import { assembleParityMeasurements } from "./analysis/parity.js";
import type { ClipMeasurements } from "./analysis/types.js";
import { DecodeError, decodeAudio } from "./audio/index.js";
import { ClipKernels, type PlanarKernels } from "./dsp/clip-kernels.js";
import { withArena } from "./dsp/wasm.js";
import type { CompatMode } from "./model/codec.js";

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
  const acoustics = set === "parity" ? null : resolveAcousticsOptions(options.acoustics);
  // One arena session: the file's PCM is copied into WebAssembly memory once (plus its exact floats).
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
