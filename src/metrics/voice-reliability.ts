// Voice Reliability (voice-metrics.md §5.7): responsiveness and audio integrity together; any critical event zeroes it.
import type { CallAnalysis } from "../analysis/call.js";
import { fmt2 } from "../analysis/python-text.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { BaseVoiceMetric, type MetricEvaluation } from "./base-metric.js";
import { detectAudioIntegrity, detectResponsiveness } from "./detectors.js";

const W_RESPONSIVENESS = 0.5;
const W_INTEGRITY = 0.5;

/** deepeval's Voice Reliability: 0 on any critical responsiveness or integrity event, else their mean. */
export class VoiceReliabilityMetric extends BaseVoiceMetric {
  readonly name = "Voice Reliability";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const r = detectResponsiveness(testCase);
    const a = detectAudioIntegrity(testCase, ctx);
    const critical = r.critical_failure || a.critical_failure;
    const score = critical ? 0.0 : W_RESPONSIVENESS * r.score + W_INTEGRITY * a.score;
    const reason = critical
      ? "Voice reliability was 0 because at least one critical responsiveness or audio-integrity failure occurred."
      : `Voice reliability was ${fmt2(score)} (responsiveness=${fmt2(r.score)}, audio integrity=${fmt2(a.score)}).`;
    return {
      score,
      reason,
      breakdown: {
        critical_failure: critical,
        responsiveness: { score: r.score, critical_failure: r.critical_failure, events: r.events },
        audio_integrity: { score: a.score, critical_failure: a.critical_failure, events: a.events },
      },
    };
  }
}
