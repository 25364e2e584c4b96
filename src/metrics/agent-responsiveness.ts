// Agent Responsiveness (voice-metrics.md §5.5): did every user turn that owed a reply get one.
import type { CallAnalysis } from "../analysis/call.js";
import { fmt2 } from "../analysis/python-text.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { BaseVoiceMetric, type MetricEvaluation } from "./base-metric.js";
import { criticalReason, detectResponsiveness } from "./detectors.js";

/** deepeval's Agent Responsiveness: whether the agent answered every caller turn (missed replies, reprompts, missing audio). */
export class AgentResponsivenessMetric extends BaseVoiceMetric {
  readonly name = "Agent Responsiveness";

  protected evaluate(testCase: ConversationalTestCase, _ctx: CallAnalysis): MetricEvaluation {
    const r = detectResponsiveness(testCase);
    const reason =
      r.events.length === 0
        ? "The agent responded without requiring a reprompt."
        : r.critical_failure
          ? criticalReason("responsiveness", r.events)
          : `Responsiveness was ${fmt2(r.score)}; ${r.events.length} reprompt event(s) were detected.`;
    return { score: r.score, reason, breakdown: { critical_failure: r.critical_failure, events: r.events } };
  }
}
