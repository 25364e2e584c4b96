// Audio Integrity, voxmetrics profile: per agent turn (dropouts, clipping, repeats, truncation; missing, undecodable and silent turns score 0), averaged so call length does not decide.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { assessIntegrity } from "./evidence.js";

/** Audio Integrity in the voxmetrics profile: dropouts, frame loss, clipping, repeats, truncation and silent agent turns, scored per agent turn and averaged. */
export class VoxmetricsAudioIntegrityMetric extends VoxmetricsMetric {
  readonly name = "Audio Integrity";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const r = assessIntegrity(this.agentTurns(testCase, ctx), this.profileOptions);
    const reason = r.events.length === 0
      ? "No audio-integrity defects were detected in any agent turn."
      : `Audio integrity was ${fmt2(r.score)} (mean over ${r.turns.length} agent turn(s)); ${r.events.length} defect event(s): ${[...new Set(r.events.map((e) => e.type))].join(", ")}.`;
    return { score: r.score, reason, breakdown: { profile: VOXMETRICS_PROFILE, critical_failure: r.critical_failure, events: r.events, turns: r.turns } };
  }
}
