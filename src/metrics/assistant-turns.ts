// Shared walk over assistant turns for the per-clip metrics (Naturalness, Intelligibility): ordinals, error entries, skip rule.
import type { CallAnalysis } from "../analysis/call.js";
import { pyMean } from "../analysis/pynum.js";
import { fmt2 } from "../analysis/python-text.js";
import { isMeasurementError, type ParityMeasurements } from "../analysis/types.js";
import type { ConversationalTestCase, Turn } from "../model/test-case.js";
import type { MetricEvaluation } from "./base-metric.js";

/** Reason of a per-clip metric with no decodable assistant audio. */
const NO_ASSISTANT_AUDIO_REASON = "No decodable assistant audio was available to evaluate.";

/**
 * Score every assistant clip with `scoreTurn`. `turn` in the breakdown is the 1-based assistant
 * ordinal (assistant turns without audio are counted but not listed); undecodable clips become
 * `{turn, error}` entries; no scored clip → skipped (voice-metrics.md §5.1–5.2).
 */
export function scoreAssistantClips(
  testCase: ConversationalTestCase,
  ctx: CallAnalysis,
  scoreTurn: (m: ParityMeasurements, turn: Turn) => Record<string, unknown> & { score: number },
  reasonLabel: string,
): MetricEvaluation {
  const entries: Array<Record<string, unknown>> = [];
  const scores: number[] = [];
  let ordinal = 0;
  testCase.turns.forEach((turn, i) => {
    if (turn.role !== "assistant") return;
    ordinal += 1;
    const clip = ctx.clip(i);
    if (!clip) return;
    if (isMeasurementError(clip.measurements)) {
      entries.push({ turn: ordinal, error: clip.measurements.error });
      return;
    }
    const entry = scoreTurn(clip.measurements, turn);
    scores.push(entry.score);
    entries.push({ turn: ordinal, ...entry });
  });
  if (scores.length === 0) return { score: null, reason: NO_ASSISTANT_AUDIO_REASON, breakdown: { turns: entries } };
  const score = pyMean(scores);
  return {
    score,
    reason: `Assistant speech ${reasonLabel} was ${fmt2(score)} across ${scores.length} eligible turn(s).`,
    breakdown: { eligible_turns: scores.length, turns: entries },
  };
}
