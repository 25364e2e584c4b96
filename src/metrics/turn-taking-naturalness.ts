// Turn-Taking Naturalness (voice-metrics.md §5.4): exponential scores of gaps, barge-ins and overlaps between speakers.
import type { CallAnalysis } from "../analysis/call.js";
import { pyMean } from "../analysis/pynum.js";
import { fmt2 } from "../analysis/python-text.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { buildTimeline, findTransitions, type TransitionKind } from "../timeline/index.js";
import { BaseVoiceMetric, type MetricEvaluation } from "./base-metric.js";

/** Decay constants (seconds) of each transition kind. */
const DECAY_S: Record<TransitionKind, number> = { gap: 2.5, user_barge_in: 2.0, agent_overlap: 0.6 };

const TURN_TAKING_REASONS = {
  missingStartTimes: "Turn-taking naturalness requires start_time on every audio turn so silence and overlap are not inferred.",
  tooFewEntries: "At least two timestamped audio turns are required to evaluate turn-taking.",
  noTransitions: "No cross-speaker transitions were available to evaluate.",
} as const;

/** deepeval's Turn-Taking Naturalness: gaps, overlaps and barge-ins between speakers on the call timeline. */
export class TurnTakingNaturalnessMetric extends BaseVoiceMetric {
  readonly name = "Turn-Taking Naturalness";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    if (testCase.turns.some((t) => t.audio && t.audio.start_time === null)) {
      return { score: null, reason: TURN_TAKING_REASONS.missingStartTimes, breakdown: { missing_start_times: true } };
    }
    const timeline = buildTimeline(testCase.turns, (i) => ctx.clip(i)?.timelineDuration ?? null);
    if (timeline.length < 2) {
      return { score: null, reason: TURN_TAKING_REASONS.tooFewEntries, breakdown: { timeline_entries: timeline.length } };
    }
    const transitions = findTransitions(timeline).map((t) => ({
      ...t,
      score: Math.exp(-Math.abs(t.gap_seconds) / DECAY_S[t.kind]),
    }));
    if (transitions.length === 0) {
      return { score: null, reason: TURN_TAKING_REASONS.noTransitions, breakdown: { transitions: [] } };
    }
    const score = pyMean(transitions.map((t) => t.score));
    return {
      score,
      reason: `Turn-taking naturalness was ${fmt2(score)} across ${transitions.length} speaker transition(s); timing is scored continuously rather than against a latency cutoff.`,
      breakdown: { transitions },
    };
  }
}
