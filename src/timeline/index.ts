// The call timeline (voice-metrics.md §4.3): clips placed by start_time and duration, and the transitions between speakers.
import { percentile } from "../analysis/percentile.js";
import type { Role, Turn } from "../model/test-case.js";

export interface TimelineEntry {
  /** 0-based position of the turn in `test_case.turns`. */
  turn_index: number;
  role: Role;
  start_time: number;
  duration: number;
  end_time: number;
}

export type TransitionKind = "gap" | "user_barge_in" | "agent_overlap";

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

/** Response latencies (ms) of user→assistant transitions: assistant start − user end (negative kept). */
export function responseLatenciesMs(transitions: readonly Transition[], entries: readonly TimelineEntry[]): number[] {
  const byTurn = new Map(entries.map((e) => [e.turn_index, e]));
  return transitions
    .filter((t) => byTurn.get(t.from_turn)?.role === "user" && byTurn.get(t.to_turn)?.role === "assistant")
    .map((t) => t.gap_seconds * 1000);
}

/** p50/p95/p99 of the response latencies, as the `timeline` output reports them. */
export function latencySummaryMs(latencies: readonly number[]): { p50: number | null; p95: number | null; p99: number | null } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

export { evaPercentile, splitReplies, type AgentReply, type CallerReply } from "./turns.js";
