// Turn-Taking Naturalness, voxmetrics profile: EVA's per-reply scores (acoustics.md §7.3) over caller→agent hand-overs only — latency curve, overlap, yield — blind to audio quality.
import type { CallAnalysis } from "../../analysis/call.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import { buildTimeline, evaPercentile, findTransitions, splitReplies, type AgentReply } from "../../timeline/index.js";
import type { MetricEvaluation } from "../base-metric.js";
import { fmt2, mean, VOXMETRICS_PROFILE, VoxmetricsMetric } from "./base.js";
import type { VoxmetricsProfileOptions } from "./options.js";

/** EVA: the count score of one overlapping agent segment (max(0, 0.5·(1 − (n − 1)/2)) with n = 1). */
const ONE_SEGMENT_COUNT_SCORE = 0.5;
/** EVA's latency curve starts rising at −500 ms. */
const CURVE_ZERO_MS = -500;
const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

const REASONS = {
  missingStartTimes: "Turn-taking requires start_time on every audio turn so silence and overlap are not inferred.",
  noReplies: "No caller→agent hand-over was available to evaluate.",
} as const;

/** EVA's piecewise-linear latency curve (ms → [0, 1]). */
export function latencyCurve(latencyMs: number, o: VoxmetricsProfileOptions): number {
  const { sweetLowMs, sweetHighMs, hardLateMs } = o.latencyCurveMs;
  if (latencyMs <= CURVE_ZERO_MS || latencyMs >= hardLateMs) return 0;
  if (latencyMs < sweetLowMs) return (latencyMs - CURVE_ZERO_MS) / (sweetLowMs - CURVE_ZERO_MS);
  if (latencyMs <= sweetHighMs) return 1;
  return (hardLateMs - latencyMs) / (hardLateMs - sweetHighMs);
}

function replyScore(r: AgentReply, o: VoxmetricsProfileOptions): { score: number; latency_score: number | null; overlap_score: number | null; yield_score: number | null } {
  const interrupted = r.latency_ms < 0;
  const latencyScore = interrupted ? null : latencyCurve(r.latency_ms, o);
  const overlapScore = interrupted ? Math.min(Math.max(0, 0.5 * (1 - r.overlap_ms / o.overlapSpanMs)), ONE_SEGMENT_COUNT_SCORE) : null;
  const yieldScore = r.yield_ms > 0 ? Math.max(0, 1 - r.yield_ms / o.overlapSpanMs) : null;
  const own = interrupted ? overlapScore! : latencyScore!;
  return { score: round4(yieldScore === null ? own : Math.min(own, yieldScore)), latency_score: latencyScore, overlap_score: overlapScore, yield_score: yieldScore };
}

/** Turn-Taking Naturalness in the voxmetrics profile: EVA-style per-reply scores over caller→agent hand-overs (latency curve, overlap, yield), blind to audio quality. */
export class VoxmetricsTurnTakingNaturalnessMetric extends VoxmetricsMetric {
  readonly name = "Turn-Taking Naturalness";

  protected evaluate(testCase: ConversationalTestCase, ctx: CallAnalysis): MetricEvaluation {
    if (testCase.turns.some((t) => t.audio && t.audio.start_time === null)) {
      return { score: null, reason: REASONS.missingStartTimes, breakdown: { profile: VOXMETRICS_PROFILE, missing_start_times: true } };
    }
    const o = this.profileOptions;
    const timeline = buildTimeline(testCase.turns, (i) => ctx.clip(i)?.timelineDuration ?? null);
    const { agent, caller } = splitReplies(timeline, findTransitions(timeline));
    if (agent.length === 0) return { score: null, reason: REASONS.noReplies, breakdown: { profile: VOXMETRICS_PROFILE, agent_replies: [], caller_replies: caller } };
    const replies = agent.map((r) => ({ ...r, ...replyScore(r, o) }));
    const score = round4(mean(replies.map((r) => r.score))!);
    const latencies = agent.filter((r) => r.latency_ms >= 0).map((r) => r.latency_ms);
    const n = agent.length;
    const interruptions = agent.filter((r) => r.latency_ms < 0);
    const yields = agent.filter((r) => r.yield_ms > 0);
    const { earlyMs, lateMs } = o.latencyRatesMs;
    const early = agent.filter((r) => r.latency_ms < earlyMs).length;
    const late = agent.filter((r) => r.latency_ms >= lateMs).length;
    const eva = {
      mean_latency_ms: mean(latencies),
      p50_latency_ms: evaPercentile(latencies, 0.5),
      p90_latency_ms: evaPercentile(latencies, 0.9),
      early_rate: early / n,
      on_time_rate: (n - early - late) / n,
      late_rate: late / n,
      mean_latency_score: mean(replies.filter((r) => r.latency_score !== null).map((r) => r.latency_score!)),
      agent_interruption: { rate: interruptions.length / n, mean_overlap_ms: mean(interruptions.map((r) => r.overlap_ms)), mean_overlap_score: mean(replies.filter((r) => r.overlap_score !== null).map((r) => r.overlap_score!)) },
      user_interruption: { rate: yields.length / n, mean_yield_ms: mean(yields.map((r) => r.yield_ms)), mean_yield_score: mean(replies.filter((r) => r.yield_score !== null).map((r) => r.yield_score!)) },
    };
    return {
      score,
      reason: `Turn-taking was ${fmt2(score)} over ${n} caller→agent hand-over(s): p50 latency ${eva.p50_latency_ms === null ? "n/a" : `${Math.round(eva.p50_latency_ms)} ms`}, ${interruptions.length} agent talk-over(s), ${yields.length} caller barge-in(s).`,
      breakdown: { profile: VOXMETRICS_PROFILE, eva, agent_replies: replies, caller_replies: caller },
    };
  }
}
