// Voice Naturalness, voxmetrics profile: per audible agent turn, the product of the clipping, dropout and repeat sub-scores; averaged.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, mean, product, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { defectEvidence } from "./evidence.js";

const NO_SPEECH_REASON = "No audible assistant speech was available to evaluate.";

/** Voice Naturalness in the voxmetrics profile: clipping, dropouts and repeats on agent turns with speech; noise does not lift it. */
export class VoxmetricsVoiceNaturalnessMetric extends VoxmetricsMetric {
  readonly name = "Voice Naturalness";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const entries: Array<Record<string, unknown>> = [];
    const scores: number[] = [];
    for (const t of this.agentTurns(testCase, ctx)) {
      if (t.status === "undecodable") entries.push({ turn: t.ordinal, error: t.error });
      // Silence is not unnatural speech: muted turns are Intelligibility's, Integrity's and Responsiveness' failures.
      if (t.status !== "ok" || !t.integrity!.audible) continue;
      const evidence = defectEvidence(t.integrity!, this.profileOptions);
      const score = product(Object.values(evidence).map((e) => e.score));
      scores.push(score);
      entries.push({ turn: t.ordinal, score, evidence });
    }
    const score = mean(scores);
    if (score === null) return { score: null, reason: NO_SPEECH_REASON, breakdown: { profile: VOXMETRICS_PROFILE, turns: entries } };
    return {
      score,
      reason: `Assistant speech naturalness (clipping, dropouts, repeats) was ${fmt2(score)} across ${scores.length} audible turn(s).`,
      breakdown: { profile: VOXMETRICS_PROFILE, eligible_turns: scores.length, turns: entries },
    };
  }
}
