// The seven deepeval voice metrics, a registry by name or id, and `evaluate()` over many test cases.
import { CallAnalysis, type CallAnalysisOptions } from "../analysis/call.js";
import { VoxError } from "../model/errors.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { AgentResponsivenessMetric } from "./agent-responsiveness.js";
import { AudioIntegrityMetric } from "./audio-integrity.js";
import type { BaseVoiceMetric, MetricOptions, MetricResult } from "./base-metric.js";
import { SpeechIntelligibilityMetric } from "./speech-intelligibility.js";
import { TurnTakingNaturalnessMetric } from "./turn-taking-naturalness.js";
import { VoiceConsistencyMetric } from "./voice-consistency.js";
import { VoiceNaturalnessMetric } from "./voice-naturalness.js";
import { VoiceReliabilityMetric } from "./voice-reliability.js";

export * from "./base-metric.js";
export * from "./detectors.js";
export {
  AgentResponsivenessMetric,
  AudioIntegrityMetric,
  SpeechIntelligibilityMetric,
  TurnTakingNaturalnessMetric,
  VoiceConsistencyMetric,
  VoiceNaturalnessMetric,
  VoiceReliabilityMetric,
};

type MetricClass = new (options?: MetricOptions) => BaseVoiceMetric;

/** One of the seven metrics: its short id, its name (the key of results), deepeval's class name and its class here. */
export interface MetricInfo {
  id: string;
  name: string;
  className: string;
  create: MetricClass;
}

/** Every metric with its short id, name and deepeval class name, in deepeval's documentation order. */
export const METRICS: ReadonlyArray<MetricInfo> = [
  { id: "naturalness", name: "Voice Naturalness", className: "VoiceNaturalnessMetric", create: VoiceNaturalnessMetric },
  { id: "intelligibility", name: "Speech Intelligibility", className: "SpeechIntelligibilityMetric", create: SpeechIntelligibilityMetric },
  { id: "consistency", name: "Voice Consistency", className: "VoiceConsistencyMetric", create: VoiceConsistencyMetric },
  { id: "turn-taking", name: "Turn-Taking Naturalness", className: "TurnTakingNaturalnessMetric", create: TurnTakingNaturalnessMetric },
  { id: "responsiveness", name: "Agent Responsiveness", className: "AgentResponsivenessMetric", create: AgentResponsivenessMetric },
  { id: "integrity", name: "Audio Integrity", className: "AudioIntegrityMetric", create: AudioIntegrityMetric },
  { id: "reliability", name: "Voice Reliability", className: "VoiceReliabilityMetric", create: VoiceReliabilityMetric },
];

function normalizeMetricKey(s: string): string {
  return s.toLowerCase().replace(/[^a-z]/g, "");
}

/**
 * Build metrics from ids, names or deepeval class names (`naturalness`, `Voice Naturalness`,
 * `VoiceNaturalnessMetric`; case, spaces, `-` and `_` ignored); all seven when empty.
 */
export function createMetrics(names: readonly string[] = [], options: MetricOptions = {}): BaseVoiceMetric[] {
  if (names.length === 0) return METRICS.map((m) => new m.create(options));
  return names.map((n) => {
    const key = normalizeMetricKey(n);
    const found = METRICS.find((m) => normalizeMetricKey(m.id) === key || normalizeMetricKey(m.name) === key || normalizeMetricKey(m.className) === key);
    if (!found) {
      throw new VoxError("INVALID_OPTION", `unknown metric "${n}"; choose from ${METRICS.map((m) => m.id).join(", ")}`, { field: "--metrics" });
    }
    return new found.create(options);
  });
}

/** One test case's outcome in `evaluate()` (skipped metrics carry no result entry, as in deepeval). */
export interface TestResult {
  name: string | null;
  /** False when any non-flaky metric with a success value failed. */
  success: boolean;
  metrics: Record<string, MetricResult>;
  /** Names of metrics that were skipped (no score). */
  skipped: string[];
}

/**
 * Score test cases with the given metrics. Each test case's clips are analysed once and shared by
 * all metrics; metric objects are copied per test case, so the ones passed in stay untouched.
 */
export function evaluate(
  testCases: readonly ConversationalTestCase[],
  metrics: readonly BaseVoiceMetric[] = createMetrics(),
  analysisOptions: CallAnalysisOptions = {},
): TestResult[] {
  return testCases.map((tc) => {
    const ctx = new CallAnalysis(tc, analysisOptions);
    const results: Record<string, MetricResult> = {};
    const skipped: string[] = [];
    let success = true;
    for (const template of metrics) {
      const metric = new (template.constructor as MetricClass)(template.options());
      metric.measure(tc, ctx);
      if (metric.skipped) {
        skipped.push(metric.name);
        continue;
      }
      results[metric.name] = metric.result();
      if (!metric.flaky && metric.success === false) success = false;
    }
    return { name: tc.name ?? null, success, metrics: results, skipped };
  });
}
