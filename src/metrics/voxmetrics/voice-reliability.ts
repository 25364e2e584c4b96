// Voice Reliability, voxmetrics profile: deepeval's rule (any critical failure → 0, else the weighted responsiveness and integrity) on the profile's evidence; a silent or looping agent is 0.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { assessIntegrity, assessResponsiveness } from "./evidence.js";

/** Voice Reliability in the voxmetrics profile: deepeval's critical-failure rule over the profile's Responsiveness and Integrity evidence; a silent or looping agent is 0. */
export class VoxmetricsVoiceReliabilityMetric extends VoxmetricsMetric {
  readonly name = "Voice Reliability";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const o = this.profileOptions;
    const turns = this.agentTurns(testCase, ctx);
    const r = assessResponsiveness(testCase, turns, o);
    const a = assessIntegrity(turns, o);
    const critical = r.critical_failure || a.critical_failure;
    const w = o.reliabilityWeights;
    const score = critical ? 0 : (w.responsiveness * r.score + w.integrity * a.score) / (w.responsiveness + w.integrity || 1);
    const reason = critical
      ? `Voice reliability was 0 because of a critical failure: ${[...r.events, ...a.events].filter((e) => e.critical).map((e) => e.type).join(", ")}.`
      : `Voice reliability was ${fmt2(score)} (responsiveness=${fmt2(r.score)}, audio integrity=${fmt2(a.score)}).`;
    return {
      score,
      reason,
      breakdown: {
        profile: VOXMETRICS_PROFILE,
        critical_failure: critical,
        responsiveness: { score: r.score, critical_failure: r.critical_failure, events: r.events },
        audio_integrity: { score: a.score, critical_failure: a.critical_failure, events: a.events },
      },
    };
  }
}
