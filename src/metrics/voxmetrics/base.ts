// The base of the voxmetrics profile's seven metrics: profile options, the analysis they need, and the walk over agent turns with their evidence.
import type { AcousticsBlock } from "../../analysis/acoustics.js";
import { CallAnalysis, type CallAnalysisOptions } from "../../analysis/call.js";
import type { IntegrityBlock } from "../../analysis/integrity.js";
import { isMeasurementError } from "../../analysis/types.js";
import { VoxError } from "../../model/errors.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import { BaseVoiceMetric, type MetricOptions } from "../base-metric.js";
import { resolveVoxmetricsProfileOptions, type VoxmetricsProfileOptions, type VoxmetricsProfileOptionsInput } from "./options.js";

/** The name of this profile in records and breakdowns. */
export const VOXMETRICS_PROFILE = "voxmetrics";

/** Options of a voxmetrics-profile metric: the usual threshold / strict options plus overrides of the profile's constants. */
export interface VoxmetricsMetricOptions extends MetricOptions {
  /** Overrides of the profile's constants (DEFAULT_VOXMETRICS_PROFILE_OPTIONS otherwise). */
  profile?: VoxmetricsProfileOptionsInput;
}

/** One agent (assistant) turn as the profile sees it. */
export interface AgentTurn {
  /** 0-based index in test_case.turns. */
  index: number;
  /** 1-based ordinal among assistant turns (deepeval's `turn` in breakdowns). */
  ordinal: number;
  /** `missing`: no audio; `undecodable`: audio that could not be decoded; `ok`: measured. */
  status: "ok" | "missing" | "undecodable";
  error?: string;
  integrity?: IntegrityBlock;
  standards?: AcousticsBlock;
}

/** Base class: resolves the profile options once; builds its own analysis with the profile's measurements when none is given. */
export abstract class VoxmetricsMetric extends BaseVoiceMetric {
  readonly profile = VOXMETRICS_PROFILE;
  readonly profileOptions: VoxmetricsProfileOptions;

  constructor(options: VoxmetricsMetricOptions = {}) {
    super(options);
    this.profileOptions = resolveVoxmetricsProfileOptions(options.profile ?? {});
  }

  override options(): VoxmetricsMetricOptions {
    return { ...super.options(), profile: this.profileOptions as VoxmetricsProfileOptionsInput };
  }

  /** The analysis options this metric needs (the profile's measurements on top of `base`). */
  analysisOptions(base: CallAnalysisOptions = {}): CallAnalysisOptions {
    return { ...base, integrity: base.integrity ?? this.profileOptions.measure };
  }

  override measure(testCase: ConversationalTestCase, ctx?: CallAnalysis, analysisOptions?: CallAnalysisOptions): number | null {
    return super.measure(testCase, ctx ?? (testCase && Array.isArray(testCase.turns) ? new CallAnalysis(testCase, this.analysisOptions(analysisOptions)) : undefined), analysisOptions);
  }

  /** Every assistant turn with its evidence, in order. */
  protected agentTurns(testCase: ConversationalTestCase, ctx: CallAnalysis): AgentTurn[] {
    const out: AgentTurn[] = [];
    let ordinal = 0;
    testCase.turns.forEach((turn, index) => {
      if (turn.role !== "assistant") return;
      ordinal += 1;
      const clip = ctx.clip(index);
      if (!clip) return out.push({ index, ordinal, status: "missing" });
      if (isMeasurementError(clip.measurements)) return out.push({ index, ordinal, status: "undecodable", error: clip.errorDetail ?? clip.measurements.error });
      if (!clip.integrity || !clip.standards) {
        throw new VoxError("INVALID_OPTION", `the ${this.name} metric of the voxmetrics profile needs the profile's measurements: analyse the call with CallAnalysis options { integrity } (evaluate() and score do this)`, { field: "integrity" });
      }
      out.push({ index, ordinal, status: "ok", integrity: clip.integrity, standards: clip.standards });
    });
    return out;
  }
}

/** Product of sub-scores (each in [0, 1]). */
export function product(scores: readonly number[]): number {
  return scores.reduce((p, s) => p * s, 1);
}

/** Arithmetic mean (null when empty). */
export function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}

/** Population standard deviation (null with fewer than two values). */
export function pstdev(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const m = mean(values)!;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) * (v - m), 0) / values.length);
}

export const fmt2 = (v: number) => v.toFixed(2);
