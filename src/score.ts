// Scores one test case end to end: clips analysed once, the chosen metrics, per-turn measurements for the result record.
import { analyzeAcoustics, type AcousticsBlock, type AcousticsOptions } from "./analysis/acoustics.js";
import { CallAnalysis } from "./analysis/call.js";
import type { DecodedAudio } from "./audio/types.js";
import type { ClipMeasurements } from "./analysis/types.js";
import { createMetrics, type MetricResult } from "./metrics/index.js";
import type { CompatMode } from "./model/codec.js";
import type { ConversationalTestCase, Role } from "./model/test-case.js";
import { convertToFloatPlanar } from "./dsp/recording-kernels.js";

export interface ScoreOptions {
  /** Metric names or ids; all seven when empty. */
  metrics?: string[];
  /** Threshold for every metric; null = score-only. @defaultValue 0.5 */
  threshold?: number | null;
  /** Strict mode for every metric. @defaultValue false */
  strict?: boolean;
  /** Audio acceptance. @defaultValue "voxmetrics" */
  compat?: CompatMode;
  /** Also compute the standards set per clip (the `acoustics` block); options tune it. @defaultValue false */
  acoustics?: boolean | Partial<AcousticsOptions>;
  /** Clips already decoded from these turns' bytes in the same compat mode (turn index → audio). */
  predecoded?: ReadonlyMap<number, DecodedAudio>;
}

/** One turn with audio in the result record (interfaces.md). */
export interface TurnRecord {
  index: number;
  role: Role;
  start_time: number | null;
  duration: number | null;
  measurements: ClipMeasurements & { detail?: string };
  acoustics?: AcousticsBlock;
}

/** The `metrics` and `turns` parts of a result record. */
export interface ScoreResult {
  metrics: Record<string, MetricResult>;
  turns: TurnRecord[];
}

/** Score one test case with every requested metric; each clip is decoded and measured once. */
export function scoreTestCase(testCase: ConversationalTestCase, options: ScoreOptions = {}): ScoreResult {
  const metrics = createMetrics(options.metrics ?? [], {
    threshold: options.threshold === undefined ? 0.5 : options.threshold,
    strict_mode: options.strict ?? false,
  });
  const acousticsOptions = options.acoustics === true ? {} : options.acoustics || undefined;
  const ctx = new CallAnalysis(testCase, {
    compat: options.compat,
    predecoded: options.predecoded,
    extra: acousticsOptions
      ? (decoded, turn) => analyzeAcoustics(convertToFloatPlanar(decoded), decoded.sampleRate, acousticsOptions, turn.content)
      : undefined,
  });
  const results: Record<string, MetricResult> = {};
  for (const metric of metrics) {
    metric.measure(testCase, ctx);
    results[metric.name] = metric.result();
  }
  const turns: TurnRecord[] = [];
  testCase.turns.forEach((turn, index) => {
    const clip = ctx.clip(index);
    if (!clip) return;
    const measurements = clip.errorDetail ? { ...clip.measurements, detail: clip.errorDetail } : clip.measurements;
    const record: TurnRecord = {
      index,
      role: turn.role,
      start_time: turn.audio?.start_time ?? null,
      duration: clip.timelineDuration,
      measurements,
    };
    if (clip.extra !== undefined) record.acoustics = clip.extra as AcousticsBlock;
    turns.push(record);
  });
  return { metrics: results, turns };
}

