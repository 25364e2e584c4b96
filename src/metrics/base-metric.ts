// deepeval's voice BaseMetric behaviour (voice-metrics.md §6): threshold, strict mode, success, skipped, reason handling.
import { CallAnalysis, type CallAnalysisOptions } from "../analysis/call.js";
import type { ConversationalTestCase } from "../model/test-case.js";

/** deepeval's metric constructor options (threshold 0–1 or null, include_reason, strict_mode, verbose_mode, flaky). */
export interface MetricOptions {
  /** Pass mark; `null` = score-only mode (success is then null). @defaultValue 0.5 */
  threshold?: number | null;
  /** Keep the reason text. @defaultValue true */
  include_reason?: boolean;
  /** Any score below the threshold (1.0 in strict mode) becomes 0.0; the reason is not recomputed. @defaultValue false */
  strict_mode?: boolean;
  /** Print the breakdown after measuring. @defaultValue false */
  verbose_mode?: boolean;
  /** A flaky metric never fails its test case. @defaultValue false */
  flaky?: boolean;
}

/** deepeval's metric defaults (threshold 0.5, reasons on, not strict). */
export const DEFAULT_METRIC_OPTIONS: Readonly<Required<MetricOptions>> = Object.freeze({
  threshold: 0.5,
  include_reason: true,
  strict_mode: false,
  verbose_mode: false,
  flaky: false,
});

/** clamp(v) = max(0.0, min(1.0, v)) (voice-metrics.md §4.1): every sub-score and score is clamped this way. */
export function clamp01(v: number): number {
  return Math.max(0.0, Math.min(1.0, v));
}

/** What a metric's own rules produce before the base class applies strict mode and success. */
export interface MetricEvaluation {
  score: number | null;
  reason: string;
  breakdown: Record<string, unknown>;
}

/** One metric's result as the result record carries it (interfaces.md). */
export interface MetricResult {
  score: number | null;
  threshold: number | null;
  success: boolean | null;
  skipped: boolean;
  strict_mode: boolean;
  reason: string | null;
  score_breakdown: Record<string, unknown> | null;
  error: string | null;
}

/** Base of the seven voice metrics: subclasses implement only `evaluate`. */
export abstract class BaseVoiceMetric {
  /** deepeval's `__name__`, the key of the result record. */
  abstract readonly name: string;
  readonly threshold: number | null;
  readonly include_reason: boolean;
  readonly strict_mode: boolean;
  readonly verbose_mode: boolean;
  readonly flaky: boolean;
  readonly evaluation_model = null;
  readonly evaluation_cost = null;

  score: number | null = null;
  reason: string | null = null;
  success: boolean | null = null;
  skipped = false;
  score_breakdown: Record<string, unknown> | null = null;
  error: string | null = null;
  /** The breakdown verbose_logs is made of, and that text once made (null: not measured). */
  private logged: { breakdown: Record<string, unknown>; text: string | null } | null = null;

  /**
   * deepeval's `verbose_logs`: `Breakdown: ` and the last measurement's breakdown as JSON (null
   * before any). Made when first read, not at every measurement: a call of hours has a breakdown
   * of megabytes, which scoring never reads as text.
   */
  get verbose_logs(): string | null {
    if (this.logged === null) return null;
    return (this.logged.text ??= `Breakdown: ${JSON.stringify(this.logged.breakdown)}`);
  }

  constructor(options: MetricOptions = {}) {
    const o = { ...DEFAULT_METRIC_OPTIONS, ...options };
    if (o.threshold !== null && (typeof o.threshold !== "number" || !Number.isFinite(o.threshold) || o.threshold < 0 || o.threshold > 1)) {
      throw new RangeError(`threshold must be a number between 0 and 1, or null, got ${String(o.threshold)}`);
    }
    this.strict_mode = o.strict_mode;
    this.threshold = o.strict_mode ? 1.0 : o.threshold;
    this.include_reason = o.include_reason;
    this.verbose_mode = o.verbose_mode;
    this.flaky = o.flaky;
  }

  /** The options this metric was built with (to build a fresh copy per test case). */
  options(): MetricOptions {
    return {
      threshold: this.strict_mode ? null : this.threshold,
      include_reason: this.include_reason,
      strict_mode: this.strict_mode,
      verbose_mode: this.verbose_mode,
      flaky: this.flaky,
    };
  }

  /** The metric's own rules (voice-metrics.md §5). */
  protected abstract evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation;

  /**
   * Score one test case. `ctx` shares decoded clips between metrics; without it a private one is used.
   * Returns the score (null when skipped).
   */
  measure(testCase: ConversationalTestCase, ctx?: CallAnalysis, analysisOptions?: CallAnalysisOptions): number | null {
    if (!testCase || !Array.isArray((testCase as ConversationalTestCase).turns)) {
      this.error = `Unable to evaluate test cases that are not of type 'ConversationalTestCase' using the conversational '${this.name}' metric.`;
      throw new TypeError(this.error);
    }
    this.error = null;
    const { score: raw, reason, breakdown } = this.evaluate(testCase, ctx ?? new CallAnalysis(testCase, analysisOptions));
    let score = raw;
    if (score !== null && this.strict_mode) {
      const bar = this.threshold === null || this.threshold === 0 ? 1.0 : this.threshold;
      if (score < bar) score = 0.0;
    }
    this.score = score;
    this.score_breakdown = breakdown;
    this.skipped = score === null;
    this.reason = this.include_reason ? reason : null;
    this.success = this.threshold === null ? null : this.error !== null || score === null ? false : score >= this.threshold;
    this.logged = { breakdown, text: null };
    if (this.verbose_mode) process.stderr.write(`${this.verbose_logs}\n \nScore: ${score}\nReason: ${this.reason}\n`);
    return score;
  }

  /** deepeval's `a_measure` (identical to measure). */
  async a_measure(testCase: ConversationalTestCase, ctx?: CallAnalysis): Promise<number | null> {
    return this.measure(testCase, ctx);
  }

  /** The last measurement as a result-record entry. */
  result(): MetricResult {
    return {
      score: this.score,
      threshold: this.threshold,
      success: this.success,
      skipped: this.skipped,
      strict_mode: this.strict_mode,
      reason: this.reason,
      score_breakdown: this.score_breakdown,
      error: this.error,
    };
  }
}
