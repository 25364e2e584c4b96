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

/** Every metric with its short id, in deepeval's documentation order. */
export const METRICS: ReadonlyArray<{ id: string; name: string; create: MetricClass }> = [
  { id: "naturalness", name: "Voice Naturalness", create: VoiceNaturalnessMetric },
  { id: "intelligibility", name: "Speech Intelligibility", create: SpeechIntelligibilityMetric },
  { id: "consistency", name: "Voice Consistency", create: VoiceConsistencyMetric },
  { id: "turn-taking", name: "Turn-Taking Naturalness", create: TurnTakingNaturalnessMetric },
  { id: "responsiveness", name: "Agent Responsiveness", create: AgentResponsivenessMetric },
  { id: "integrity", name: "Audio Integrity", create: AudioIntegrityMetric },
  { id: "reliability", name: "Voice Reliability", create: VoiceReliabilityMetric },
];

function normalizeMetricKey(s: string): string {
  return s.toLowerCase().replace(/[^a-z]/g, "");
}

/**
 * Build metrics from names or ids (`naturalness`, `Voice Naturalness`, `turn_taking`…); all seven
 * when empty. `profile` picks deepeval's metrics (the default) or the voxmetrics profile's, whose
 * constants `options.profile` overrides.
 */
export function createMetrics(names: readonly string[] = [], options: VoxmetricsMetricOptions = {}, profile: MetricProfile = "deepeval"): BaseVoiceMetric[] {
  if (!METRIC_PROFILES.includes(profile)) {
    throw new VoxError("INVALID_OPTION", `unknown profile "${String(profile)}"; choose from ${METRIC_PROFILES.join(", ")}`, { field: "--profile" });
  }
  const make = (m: (typeof METRICS)[number]) => (profile === "voxmetrics" ? new VOXMETRICS_CLASSES[m.id](options) : new m.create(withoutProfile(options)));
  if (names.length === 0) return METRICS.map(make);
  return names.map((n) => {
    const key = normalizeMetricKey(n);
    const found = METRICS.find((m) => normalizeMetricKey(m.id) === key || normalizeMetricKey(m.name) === key);
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
  const options = analysisOptionsFor(metrics, analysisOptions);
  return testCases.map((tc) => {
    const ctx = new CallAnalysis(tc, options);
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
