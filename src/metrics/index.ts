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
import { VoxmetricsAgentResponsivenessMetric } from "./voxmetrics/agent-responsiveness.js";
import { VoxmetricsAudioIntegrityMetric } from "./voxmetrics/audio-integrity.js";
import { VoxmetricsMetric, type VoxmetricsMetricOptions } from "./voxmetrics/base.js";
import { VoxmetricsSpeechIntelligibilityMetric } from "./voxmetrics/speech-intelligibility.js";
import { VoxmetricsTurnTakingNaturalnessMetric } from "./voxmetrics/turn-taking-naturalness.js";
import { VoxmetricsVoiceConsistencyMetric } from "./voxmetrics/voice-consistency.js";
import { VoxmetricsVoiceNaturalnessMetric } from "./voxmetrics/voice-naturalness.js";
import { VoxmetricsVoiceReliabilityMetric } from "./voxmetrics/voice-reliability.js";

export * from "./base-metric.js";
export * from "./detectors.js";
export { VOXMETRICS_PROFILE, VoxmetricsMetric, type AgentTurn, type VoxmetricsMetricOptions } from "./voxmetrics/base.js";
export {
  DEFAULT_VOXMETRICS_PROFILE_OPTIONS,
  resolveVoxmetricsProfileOptions,
  type Band,
  type Evidence,
  type Ramp,
  type VoxmetricsProfileOptions,
  type VoxmetricsProfileOptionsInput,
} from "./voxmetrics/options.js";
export {
  VoxmetricsAgentResponsivenessMetric,
  VoxmetricsAudioIntegrityMetric,
  VoxmetricsSpeechIntelligibilityMetric,
  VoxmetricsTurnTakingNaturalnessMetric,
  VoxmetricsVoiceConsistencyMetric,
  VoxmetricsVoiceNaturalnessMetric,
  VoxmetricsVoiceReliabilityMetric,
};
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

/** The scoring profiles: deepeval's seven metrics exactly, or the calibrated voxmetrics profile of the same seven. */
export const METRIC_PROFILES = ["deepeval", "voxmetrics"] as const;
/** A scoring profile: `deepeval` (deepeval's seven metrics, exactly) or `voxmetrics` (the calibrated profile). */
export type MetricProfile = (typeof METRIC_PROFILES)[number];

/** The voxmetrics profile's class of each metric id. */
const VOXMETRICS_CLASSES: Readonly<Record<string, MetricClass>> = {
  naturalness: VoxmetricsVoiceNaturalnessMetric,
  intelligibility: VoxmetricsSpeechIntelligibilityMetric,
  consistency: VoxmetricsVoiceConsistencyMetric,
  "turn-taking": VoxmetricsTurnTakingNaturalnessMetric,
  responsiveness: VoxmetricsAgentResponsivenessMetric,
  integrity: VoxmetricsAudioIntegrityMetric,
  reliability: VoxmetricsVoiceReliabilityMetric,
};

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
 * `VoiceNaturalnessMetric`; case, spaces, `-` and `_` ignored); all seven when empty. `profile`
 * picks deepeval's metrics (the default) or the voxmetrics profile's, whose constants
 * `options.profile` overrides.
 */
export function createMetrics(names: readonly string[] = [], options: VoxmetricsMetricOptions = {}, profile: MetricProfile = "deepeval"): BaseVoiceMetric[] {
  if (!METRIC_PROFILES.includes(profile)) {
    throw new VoxError("INVALID_OPTION", `unknown profile "${String(profile)}"; choose from ${METRIC_PROFILES.join(", ")}`, { field: "--profile" });
  }
  const make = (m: (typeof METRICS)[number]) => (profile === "voxmetrics" ? new VOXMETRICS_CLASSES[m.id](options) : new m.create(withoutProfile(options)));
  if (names.length === 0) return METRICS.map(make);
  return names.map((n) => {
    const key = normalizeMetricKey(n);
    const found = METRICS.find((m) => normalizeMetricKey(m.id) === key || normalizeMetricKey(m.name) === key || normalizeMetricKey(m.className) === key);
    if (!found) {
      throw new VoxError("INVALID_OPTION", `unknown metric "${n}"; choose from ${METRICS.map((m) => m.id).join(", ")}`, { field: "--metrics" });
    }
    return make(found);
  });
}

function withoutProfile(options: VoxmetricsMetricOptions): MetricOptions {
  const { profile: _profile, ...rest } = options;
  return rest;
}

/** The analysis options the metrics need on top of `base`: the voxmetrics profile's measurements when any metric is of that profile. */
export function analysisOptionsFor(metrics: readonly BaseVoiceMetric[], base: CallAnalysisOptions = {}): CallAnalysisOptions {
  const vox = metrics.find((m): m is VoxmetricsMetric => m instanceof VoxmetricsMetric);
  return vox ? vox.analysisOptions(base) : base;
}

/** One metric's outcome as deepeval's `MetricData` (an entry of `TestResult.metrics_data`). */
export interface MetricData {
  name: string;
  threshold: number | null;
  success: boolean | null;
  score: number | null;
  reason: string | null;
  strict_mode: boolean;
  evaluation_model: null;
  error: string | null;
  evaluation_cost: null;
  verbose_logs: string | null;
}

/** One test case's outcome in `evaluate()` (skipped metrics carry no result entry, as in deepeval). */
export interface TestResult {
  name: string | null;
  /** False when any non-flaky metric with a success value failed. */
  success: boolean;
  /** Results by metric name (with breakdowns). */
  metrics: Record<string, MetricResult>;
  /** deepeval's `metrics_data`: the scored metrics, in the order given. */
  metrics_data: MetricData[];
  /** Names of metrics that were skipped (no score). */
  skipped: string[];
}

/** Thrown by `assertTest` when a metric fails: the message lists each, as deepeval's `assert_test` does. */
export class MetricAssertionError extends Error {
  /** The metrics that failed. */
  readonly failed: MetricData[];

  constructor(failed: MetricData[]) {
    const list = failed.map((m) => `${m.name} (score: ${m.score}, threshold: ${m.threshold}, strict: ${m.strict_mode}, error: ${m.error}, reason: ${m.reason})`).join(", ");
    super(`Metrics: ${list} failed.`);
    this.name = "MetricAssertionError";
    this.failed = failed;
  }
}

/**
 * deepeval's `assert_test` for a test runner: score one test case with `metrics` and throw a
 * MetricAssertionError listing the failing metrics (a non-flaky metric whose success is false);
 * returns the test result when all pass.
 *
 * @example
 * ```ts
 * it("greets naturally", () => assertTest(testCase, [new VoiceNaturalnessMetric({ threshold: 0.7 })]));
 * ```
 */
export function assertTest(testCase: ConversationalTestCase, metrics: readonly BaseVoiceMetric[] = createMetrics(), analysisOptions: CallAnalysisOptions = {}): TestResult {
  const [result] = evaluate([testCase], metrics, analysisOptions);
  const flaky = new Set(metrics.filter((m) => m.flaky).map((m) => m.name));
  const failed = result.metrics_data.filter((m) => m.success === false && !flaky.has(m.name));
  if (failed.length > 0) throw new MetricAssertionError(failed);
  return result;
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
  const options = analysisOptionsFor(metrics, analysisOptions);
  return testCases.map((tc) => {
    const ctx = new CallAnalysis(tc, options);
    const results: Record<string, MetricResult> = {};
    const metricsData: MetricData[] = [];
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
      metricsData.push({
        name: metric.name,
        threshold: metric.threshold,
        success: metric.success,
        score: metric.score,
        reason: metric.reason,
        strict_mode: metric.strict_mode,
        evaluation_model: null,
        error: metric.error,
        evaluation_cost: null,
        verbose_logs: metric.verbose_logs,
      });
      if (!metric.flaky && metric.success === false) success = false;
    }
    return { name: tc.name ?? null, success, metrics: results, metrics_data: metricsData, skipped };
  });
}
