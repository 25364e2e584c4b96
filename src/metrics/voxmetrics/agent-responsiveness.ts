// Agent Responsiveness, voxmetrics profile: deepeval's reply, reprompt and end-of-call rules, plus agent turns with no audible speech.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import type { MetricEvaluation } from "../base-metric.js";
import { criticalReason } from "../detectors.js";
import { fmt2, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import { assessResponsiveness } from "./evidence.js";

/** Agent Responsiveness in the voxmetrics profile: deepeval's reprompt and end-of-call rules plus agent turns with no detected speech (critical while the caller waits). */
export class VoxmetricsAgentResponsivenessMetric extends VoxmetricsMetric {
  readonly name = "Agent Responsiveness";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const r = assessResponsiveness(testCase, this.agentTurns(testCase, ctx), this.profileOptions);
    const reason = r.events.length === 0
      ? "The agent answered every turn with audible speech and without a reprompt."
      : r.critical_failure
        ? criticalReason("responsiveness", r.events)
        : `Responsiveness was ${fmt2(r.score)}; ${r.events.length} event(s): ${r.events.map((e) => e.type).join(", ")}.`;
    return { score: r.score, reason, breakdown: { profile: VOXMETRICS_PROFILE, critical_failure: r.critical_failure, events: r.events } };
  }
}
