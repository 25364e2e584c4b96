// The call timeline (voice-metrics.md §4.3): clips placed by start_time and duration, and the transitions between speakers.
import { percentile } from "../analysis/percentile.js";
import type { Role, Turn } from "../model/test-case.js";

/** A turn placed on the call clock: its index in `turns`, role, start, duration and end (seconds). */
export interface TimelineEntry {
  /** 0-based position of the turn in `test_case.turns`. */
  turn_index: number;
  role: Role;
  start_time: number;
  duration: number;
  end_time: number;
}

/** How one speaker hands over to the other: a gap, a caller barge-in, or an agent overlap. */
export type TransitionKind = "gap" | "user_barge_in" | "agent_overlap";

/** A change of speaker on the timeline: the two turns, its kind and the gap (negative: overlap). */
export interface Transition {
  from_turn: number;
  to_turn: number;
  kind: TransitionKind;
  /** next.start_time − cur.end_time in seconds; negative = overlap. */
  gap_seconds: number;
}

/**
 * deepeval's `build_audio_timeline`: every turn with audio and a known duration, placed at its
 * `start_time` (or, when start times are not required, at the running end cursor), sorted by
 * (start_time, turn_index).
 */
export function buildTimeline(
  turns: readonly Turn[],
  durationOf: (turnIndex: number) => number | null,
  requireStartTimes = true,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  let cursor = 0;
  turns.forEach((turn, i) => {
    if (!turn.audio) return;
    const duration = durationOf(i);
    if (duration === null) return;
    let start = turn.audio.start_time;
    if (start === null) {
      if (requireStartTimes) return;
      start = cursor;
    }
    const end = start + duration;
    cursor = Math.max(cursor, end);
    entries.push({ turn_index: i, role: turn.role, start_time: start, duration, end_time: end });
  });
  entries.sort((a, b) => a.start_time - b.start_time || a.turn_index - b.turn_index);
  return entries;
}

/** Adjacent pairs of the sorted timeline spoken by different roles, classified as in voice-metrics.md §5.4. */
export function findTransitions(entries: readonly TimelineEntry[]): Transition[] {
  const out: Transition[] = [];
  for (let k = 0; k + 1 < entries.length; k++) {
    const cur = entries[k];
    const next = entries[k + 1];
    if (cur.role === next.role) continue;
    const gap = next.start_time - cur.end_time;
    const kind: TransitionKind = gap >= 0 ? "gap" : cur.role === "assistant" && next.role === "user" ? "user_barge_in" : "agent_overlap";
    out.push({ from_turn: cur.turn_index, to_turn: next.turn_index, kind, gap_seconds: gap });
  }
  return out;
}

/**
 * Response latencies (ms) of caller → agent transitions: assistant start − user end (negative when
 * the agent started before the caller finished). Only an agent turn that starts after its caller
 * turn started is a response: two clips starting together (say both at 0 in a recording) are not.
 */
export function responseLatenciesMs(transitions: readonly Transition[], entries: readonly TimelineEntry[]): number[] {
  const byTurn = new Map(entries.map((e) => [e.turn_index, e]));
  return transitions
    .filter((t) => {
      const from = byTurn.get(t.from_turn);
      const to = byTurn.get(t.to_turn);
      return from?.role === "user" && to?.role === "assistant" && to.start_time > from.start_time;
    })
    .map((t) => t.gap_seconds * 1000);
}

/** Samples a percentile needs before it is reported (fewer: null): p50 any, p95 20, p99 100. */
export const LATENCY_PERCENTILE_MIN_SAMPLES = Object.freeze({ p50: 1, p95: 20, p99: 100 });

/** The response-latency summary of `timeline`: how many, and the percentiles that many samples support. */
export interface LatencySummary {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** p50/p95/p99 of the response latencies (each null below its LATENCY_PERCENTILE_MIN_SAMPLES), with the count. */
export function latencySummaryMs(latencies: readonly number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const n = sorted.length;
  const min = LATENCY_PERCENTILE_MIN_SAMPLES;
  return {
    count: n,
    p50: n >= min.p50 ? percentile(sorted, 50) : null,
    p95: n >= min.p95 ? percentile(sorted, 95) : null,
    p99: n >= min.p99 ? percentile(sorted, 99) : null,
  };
}

export { evaPercentile, splitReplies, type AgentReply, type CallerReply } from "./turns.js";
