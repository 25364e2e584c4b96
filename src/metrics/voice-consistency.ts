// Voice Consistency (voice-metrics.md §5.3): stability of loudness, pitch and zero-crossing rate across assistant clips.
import type { CallAnalysis } from "../analysis/call.js";
import { pyMean, pyPstdev } from "../analysis/pynum.js";
import { fmt2 } from "../analysis/python-text.js";
import { isMeasurementError } from "../analysis/types.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { BaseVoiceMetric, clamp01, type MetricEvaluation } from "./base-metric.js";

const LOUDNESS_SPAN_DB = 12.0;
const MEAN_FLOOR = 1e-6;
const W_PITCH = 0.4;
const W_LOUDNESS_WITH_PITCH = 0.35;
const W_TIMBRE_WITH_PITCH = 0.25;
const W_LOUDNESS = 0.6;
const W_TIMBRE = 0.4;

const CONSISTENCY_SKIP_REASON = "At least two decodable assistant audio turns are required to evaluate voice consistency.";

interface ConsistencyRecord {
  turn: number;
  rms_dbfs: number;
  pitch_mean_hz: number | null;
  zero_crossing_rate: number;
}

/** deepeval's Voice Consistency: whether the agent sounds like one voice across the call. */
export class VoiceConsistencyMetric extends BaseVoiceMetric {
  readonly name = "Voice Consistency";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    const records: ConsistencyRecord[] = [];
    testCase.turns.forEach((turn, i) => {
      if (turn.role !== "assistant") return;
      const clip = ctx.clip(i);
      if (!clip || isMeasurementError(clip.measurements)) return;
      const m = clip.measurements;
      records.push({ turn: i, rms_dbfs: m.rms_dbfs, pitch_mean_hz: m.pitch_mean_hz, zero_crossing_rate: m.zero_crossing_rate });
    });
    if (records.length < 2) {
      return { score: null, reason: CONSISTENCY_SKIP_REASON, breakdown: { eligible_turns: records.length, turns: records } };
    }
    const loudness = clamp01(1.0 - pyPstdev(records.map((r) => r.rms_dbfs)) / LOUDNESS_SPAN_DB);
    const zcrs = records.map((r) => r.zero_crossing_rate);
    const timbre = clamp01(1.0 - pyPstdev(zcrs) / Math.max(pyMean(zcrs), MEAN_FLOOR));
    const pitches = records.map((r) => r.pitch_mean_hz).filter((p): p is number => p !== null);
    let pitch: number | null = null;
    let score: number;
    if (pitches.length > 1) {
      pitch = clamp01(1.0 - pyPstdev(pitches) / Math.max(pyMean(pitches), MEAN_FLOOR));
      score = W_PITCH * pitch + W_LOUDNESS_WITH_PITCH * loudness + W_TIMBRE_WITH_PITCH * timbre;
    } else {
      score = W_LOUDNESS * loudness + W_TIMBRE * timbre;
    }
    return {
      score,
      reason: `Assistant voice consistency was ${fmt2(score)} across ${records.length} turns.`,
      breakdown: {
        eligible_turns: records.length,
        pitch_consistency: pitch,
        loudness_consistency: loudness,
        spectral_consistency: timbre,
        turns: records,
      },
    };
  }
}
