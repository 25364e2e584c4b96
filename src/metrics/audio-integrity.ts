// Audio Integrity (voice-metrics.md §5.6): missing or broken assistant audio, cut-offs, loops, dropouts, clipping.
import type { CallAnalysis } from "../analysis/call.js";
import { fmt2 } from "../analysis/python-text.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { BaseVoiceMetric, type MetricEvaluation } from "./base-metric.js";
import { criticalReason, detectAudioIntegrity } from "./detectors.js";

/** deepeval's Audio Integrity: technical faults of the agent's audio (undecodable clips, clipping, dropouts, loops, abrupt edges). */
export class AudioIntegrityMetric extends BaseVoiceMetric {
  readonly name = "Audio Integrity";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const r = detectAudioIntegrity(testCase, ctx);
    const reason =
      r.events.length === 0
        ? "No audio-integrity failures were detected."
        : r.critical_failure
          ? criticalReason("audio-integrity", r.events)
          : `Audio integrity was ${fmt2(r.score)}; ${r.events.length} defect event(s) were detected.`;
    return { score: r.score, reason, breakdown: { critical_failure: r.critical_failure, events: r.events } };
  }
}
