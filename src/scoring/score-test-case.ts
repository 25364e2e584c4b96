// Scores one test case end to end: clips analysed once, the chosen metrics, per-turn measurements for the result record.
import type { AcousticsBlock } from "../analysis/acoustics.js";
import { CallAnalysis, type LoadedCall } from "../analysis/call.js";
import type { ClipMeasurements } from "../analysis/types.js";
import { analysisOptionsFor, createMetrics, type MetricProfile, type MetricResult } from "../metrics/index.js";
import type { ConversationalTestCase, Role } from "../model/test-case.js";
import { resolveScoreOptions, type ScoreOptions, type ScoreOptionsInput } from "./options.js";
import { wordErrorRate } from "../text/error-rate.js";

/** One turn with audio in the result record (interfaces.md). */
export interface TurnRecord {
  index: number;
  role: Role;
  start_time: number | null;
  duration: number | null;
  measurements: ClipMeasurements & { detail?: string };
  acoustics?: AcousticsBlock;
  /** Word error counts of the agent's transcription of this caller turn against its reference text, when the source has both (replays). */
  wer?: TurnWer;
  /** Why the standards set (`--acoustics`) could not measure this clip. */
  acoustics_error?: string;
}

/** Word error counts of one caller turn (the agent's ASR against the reference text), sclite-equal. */
export interface TurnWer {
  reference_words: number;
  correct: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  rate: number | null;
}

/** The WER of a user turn whose metadata holds `reference_text` and `asr_transcript` (strings); null otherwise. */
function turnWer(metadata: Record<string, unknown> | null | undefined): TurnWer | null {
  const ref = metadata?.reference_text;
  const hyp = metadata?.asr_transcript;
  if (typeof ref !== "string" || typeof hyp !== "string" || ref.trim() === "") return null;
  const w = wordErrorRate(ref, hyp);
  return { reference_words: w.referenceLength, correct: w.correct, substitutions: w.substitutions, deletions: w.deletions, insertions: w.insertions, rate: w.rate };
}

/** The `profile`, `metrics` and `turns` parts of a result record. */
export interface ScoreResult {
  /** The profile whose metrics produced `metrics`. */
  profile: MetricProfile;
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
  const metrics = createMetrics(options.metrics, { threshold: options.threshold, strict_mode: options.strict, profile: options.profileOptions }, options.profile);
  const ctx = new CallAnalysis(call, analysisOptionsFor(metrics, { compat: options.compat, acoustics: options.acoustics, limits: options.limits }));
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
    const wer = turn.role === "user" ? turnWer(turn.metadata) : null;
    if (wer) record.wer = wer;
    if (clip.acousticsError !== undefined) record.acoustics_error = clip.acousticsError;
    turns.push(record);
  });
  return { profile: options.profile, metrics: results, turns };
}

