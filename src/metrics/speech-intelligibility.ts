// Speech Intelligibility (voice-metrics.md §5.2): weighted SNR, volume, clipping and dropout components.
import type { CallAnalysis } from "../analysis/call.js";
import type { ParityMeasurements } from "../analysis/types.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { scoreAssistantClips } from "./assistant-turns.js";
import { BaseVoiceMetric, clamp01, type MetricEvaluation } from "./base-metric.js";

const SNR_FLOOR_DB = 3.0;
const SNR_SPAN_DB = 22.0;
const VOLUME_TARGET_DBFS = -20.0;
const VOLUME_SPAN_DB = 35.0;
const CLIPPING_SLOPE = 30.0;
const DROPOUT_STEP = 0.12;
const W_SNR = 0.4;
const W_VOLUME = 0.25;
const W_CLIPPING = 0.2;
const W_DROPOUTS = 0.15;

/** One clip's intelligibility; components clamped, weighted sum left to right, clamped. */
function intelligibilityTurnScore(m: ParityMeasurements): number {
  const snr = clamp01((m.estimated_snr_db - SNR_FLOOR_DB) / SNR_SPAN_DB);
  const volume = clamp01(1.0 - Math.abs(m.rms_dbfs - VOLUME_TARGET_DBFS) / VOLUME_SPAN_DB);
  const clipping = clamp01(1.0 - m.clipping_fraction * CLIPPING_SLOPE);
  const dropouts = clamp01(1.0 - m.dropout_events * DROPOUT_STEP);
  return clamp01(W_SNR * snr + W_VOLUME * volume + W_CLIPPING * clipping + W_DROPOUTS * dropouts);
}

/** deepeval's Speech Intelligibility: whether the agent can be understood (SNR, level, clipping, dropouts). */
export class SpeechIntelligibilityMetric extends BaseVoiceMetric {
  readonly name = "Speech Intelligibility";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    return scoreAssistantClips(
      testCase,
      ctx,
      (m) => ({
        score: intelligibilityTurnScore(m),
        estimated_snr_db: m.estimated_snr_db,
        rms_dbfs: m.rms_dbfs,
        clipping_fraction: m.clipping_fraction,
        dropout_events: m.dropout_events,
      }),
      "intelligibility",
    );
  }
}
