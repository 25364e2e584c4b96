// Voice Naturalness (voice-metrics.md §5.1): penalties for clipping, dropouts, loops, silence, noise, rate and flat/erratic pitch.
import type { CallAnalysis } from "../analysis/call.js";
import { pySplit } from "../analysis/python-text.js";
import type { ParityMeasurements } from "../analysis/types.js";
import type { ConversationalTestCase, Turn } from "../model/test-case.js";
import { scoreAssistantClips } from "./assistant-turns.js";
import { BaseVoiceMetric, clamp01, type MetricEvaluation } from "./base-metric.js";

const CLIPPING_SLOPE = 25.0;
const CLIPPING_CAP = 0.35;
const DROPOUT_STEP = 0.08;
const DROPOUT_CAP = 0.25;
const LOOP_STEP = 0.1;
const LOOP_CAP = 0.2;
const SILENCE_TRIGGER = 0.45;
const SILENCE_SLOPE = 0.5;
const SILENCE_CAP = 0.2;
const SNR_TRIGGER_DB = 15;
const SNR_DIVISOR_DB = 50;
const SNR_CAP = 0.2;
const SLOW_WPM = 80;
const SLOW_DIVISOR = 300;
const FAST_WPM = 240;
const FAST_DIVISOR = 500;
const RATE_CAP = 0.2;
const PITCH_FLAT_HZ = 4;
const PITCH_ERRATIC_HZ = 90;
const PITCH_PENALTY = 0.1;

/** Words per minute of speech: words / (duration × (1 − silence_fraction) / 60) (voice-metrics.md §3.8). */
function speakingRateWpm(content: string, m: ParityMeasurements): number | null {
  const words = pySplit(content).length;
  const speech = m.duration * (1 - m.silence_fraction);
  if (words === 0 || speech <= 0) return null;
  return words / (speech / 60);
}

/** One clip's naturalness: 1.0 minus each penalty in the reference's order, clamped. */
function naturalnessTurnScore(m: ParityMeasurements, wpm: number | null): number {
  let s = 1.0;
  s -= Math.min(CLIPPING_CAP, m.clipping_fraction * CLIPPING_SLOPE);
  s -= Math.min(DROPOUT_CAP, m.dropout_events * DROPOUT_STEP);
  s -= Math.min(LOOP_CAP, m.loop_events * LOOP_STEP);
  if (m.silence_fraction > SILENCE_TRIGGER) s -= Math.min(SILENCE_CAP, (m.silence_fraction - SILENCE_TRIGGER) * SILENCE_SLOPE);
  if (m.estimated_snr_db < SNR_TRIGGER_DB) s -= Math.min(SNR_CAP, (SNR_TRIGGER_DB - m.estimated_snr_db) / SNR_DIVISOR_DB);
  if (wpm !== null && wpm < SLOW_WPM) s -= Math.min(RATE_CAP, (SLOW_WPM - wpm) / SLOW_DIVISOR);
  else if (wpm !== null && wpm > FAST_WPM) s -= Math.min(RATE_CAP, (wpm - FAST_WPM) / FAST_DIVISOR);
  const pv = m.pitch_variation_hz;
  if (pv !== null && (pv < PITCH_FLAT_HZ || pv > PITCH_ERRATIC_HZ)) s -= PITCH_PENALTY;
  return clamp01(s);
}

/** deepeval's Voice Naturalness: speaking rate, pauses, pitch variation, clipping, dropouts and loops of the agent's speech. */
export class VoiceNaturalnessMetric extends BaseVoiceMetric {
  readonly name = "Voice Naturalness";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    return scoreAssistantClips(
      testCase,
      ctx,
      (m: ParityMeasurements, turn: Turn) => {
        const wpm = speakingRateWpm(turn.content, m);
        return {
          score: naturalnessTurnScore(m, wpm),
          speaking_rate_wpm: wpm,
          silence_fraction: m.silence_fraction,
          pitch_variation_hz: m.pitch_variation_hz,
          clipping_fraction: m.clipping_fraction,
          dropout_events: m.dropout_events,
          loop_events: m.loop_events,
        };
      },
      "naturalness",
    );
  }
}
