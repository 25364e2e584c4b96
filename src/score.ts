// Scores one test case end to end: clips analysed once, the chosen metrics, per-turn measurements for the result record.
import type { AcousticsBlock } from "./analysis/acoustics.js";
import { resolveAcousticsOptions, type AcousticsOptions } from "./analysis/acoustics-options.js";
import { CallAnalysis, type LoadedCall } from "./analysis/call.js";
import type { ClipMeasurements } from "./analysis/types.js";
import { createMetrics, type MetricResult } from "./metrics/index.js";
import type { CompatMode } from "./model/codec.js";
import type { ConversationalTestCase, Role } from "./model/test-case.js";

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
export function scoreTestCase(call: ConversationalTestCase | LoadedCall, options: ScoreOptions = {}): ScoreResult {
  const testCase = "testCase" in call ? call.testCase : call;
  const metrics = createMetrics(options.metrics ?? [], {
    threshold: options.threshold === undefined ? 0.5 : options.threshold,
    strict_mode: options.strict ?? false,
  });
  const acoustics = options.acoustics === true ? resolveAcousticsOptions() : options.acoustics ? resolveAcousticsOptions(options.acoustics) : null;
  const ctx = new CallAnalysis(call, { compat: options.compat, acoustics });
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
    if (clip.acoustics !== undefined) record.acoustics = clip.acoustics;
    turns.push(record);
  });
  return { metrics: results, turns };
}

