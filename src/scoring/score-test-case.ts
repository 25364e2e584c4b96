// Scores one test case end to end: clips analysed once, the chosen metrics, per-turn measurements for the result record.
import type { AcousticsBlock } from "../analysis/acoustics.js";
import { CallAnalysis, type LoadedCall } from "../analysis/call.js";
import type { ClipMeasurements } from "../analysis/types.js";
import { createMetrics, type MetricResult } from "../metrics/index.js";
import type { ConversationalTestCase, Role } from "../model/test-case.js";
import { resolveScoreOptions, type ScoreOptions, type ScoreOptionsInput } from "./options.js";

/** One turn with audio in the result record (interfaces.md). */
export interface TurnRecord {
  index: number;
  role: Role;
  start_time: number | null;
  duration: number | null;
  measurements: ClipMeasurements & { detail?: string };
  acoustics?: AcousticsBlock;
  /** Why the standards set (`--acoustics`) could not measure this clip. */
  acoustics_error?: string;
}

/** The `metrics` and `turns` parts of a result record. */
export interface ScoreResult {
  metrics: Record<string, MetricResult>;
  turns: TurnRecord[];
}

/** Score one test case with every requested metric; each clip is decoded and measured once. */
export function scoreTestCase(testCase: ConversationalTestCase, options: ScoreOptionsInput = {}): ScoreResult {
  return scoreLoadedCall({ testCase, warnings: [] }, resolveScoreOptions(options));
}

/** Score a call as ingest loaded it (the clips it already decoded are reused), with resolved options. */
export function scoreLoadedCall(call: LoadedCall, options: ScoreOptions): ScoreResult {
  const { testCase } = call;
  const metrics = createMetrics(options.metrics, { threshold: options.threshold, strict_mode: options.strict });
  const ctx = new CallAnalysis(call, { compat: options.compat, acoustics: options.acoustics, limits: options.limits });
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
    if (clip.acousticsError !== undefined) record.acoustics_error = clip.acousticsError;
    turns.push(record);
  });
  return { metrics: results, turns };
}

