// Conversation figures of one scored call, from its result record's turns placed on the call clock: response latency percentiles, talk ratio, overlap, barge-ins, longest silence.
import { percentile } from "../analysis/percentile.js";
import { findTransitions, responseLatenciesMs, type TimelineEntry, type Transition } from "../timeline/index.js";
import type { TurnRecord } from "./score-test-case.js";

/** Response latency percentiles in ms (null when the call has no user → assistant transition). */
export interface LatencyPercentilesMs {
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * The conversation figures of one call (additive to interfaces.md: CSV columns and, aggregated, the
 * summary's `conversation` block). Speaking time is the extent of each clip on the timeline, as the
 * timeline places it (start_time + duration); a clip's inner pauses count as speaking.
 */
export interface CallStats {
  /** Turns placed on the timeline (turns without start_time or duration are not). */
  timed_turns: number;
  /** Number of user → assistant response latencies measured. */
  responses: number;
  latency_ms: LatencyPercentilesMs;
  /** Seconds during which the assistant (resp. the user) has a clip on the timeline (union of extents). */
  agent_talk_s: number;
  user_talk_s: number;
  /** agent_talk_s / (agent_talk_s + user_talk_s); null when nobody is on the timeline. */
  talk_ratio: number | null;
  /** Seconds during which both parties have a clip on the timeline. */
  overlap_s: number;
  /** Transitions where the user starts before the assistant's clip ends. */
  user_barge_ins: number;
  /** Transitions where the assistant starts before the user's clip ends. */
  agent_overlaps: number;
  /** Longest stretch between the first clip's start and the last clip's end with nobody on the timeline (s); null with no timed turn. */
  longest_silence_s: number | null;
}

/** Percentiles reported for response latencies. */
export const LATENCY_PERCENTILES = [50, 90, 95, 99] as const;

/** p50/p90/p95/p99 of latencies (ms), linear interpolation between ranks as everywhere in the engine. */
export function latencyPercentilesMs(latencies: readonly number[]): LatencyPercentilesMs {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/**
 * The timeline of a result record's turns: the turns with a start_time and a duration, sorted by
 * (start_time, index), as `buildTimeline` places clips when start times are required.
 */
export function timelineOfTurnRecords(turns: readonly TurnRecord[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const t of turns) {
    if (t.start_time === null || t.duration === null) continue;
    entries.push({ turn_index: t.index, role: t.role, start_time: t.start_time, duration: t.duration, end_time: t.start_time + t.duration });
  }
  return entries.sort((a, b) => a.start_time - b.start_time || a.turn_index - b.turn_index);
}

type Interval = [number, number];

/** Union of intervals, sorted and merged. */
function union(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: Interval[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const total = (intervals: Interval[]) => intervals.reduce((s, [a, b]) => s + (b - a), 0);

/** Total length of the intersection of two merged interval lists. */
function intersection(x: Interval[], y: Interval[]): number {
  let i = 0, j = 0, sum = 0;
  while (i < x.length && j < y.length) {
    const lo = Math.max(x[i][0], y[j][0]);
    const hi = Math.min(x[i][1], y[j][1]);
    if (hi > lo) sum += hi - lo;
    if (x[i][1] < y[j][1]) i++;
    else j++;
  }
  return sum;
}

/** The figures of one call from its timeline and transitions. */
export function statsOfTimeline(entries: readonly TimelineEntry[], transitions: readonly Transition[]): CallStats {
  const latencies = responseLatenciesMs(transitions, entries);
  const agent = union(entries.filter((e) => e.role === "assistant").map((e) => [e.start_time, e.end_time]));
  const user = union(entries.filter((e) => e.role === "user").map((e) => [e.start_time, e.end_time]));
  const all = union(entries.map((e) => [e.start_time, e.end_time]));
  const agentTalk = total(agent);
  const userTalk = total(user);
  let longest: number | null = entries.length ? 0 : null;
  for (let k = 1; k < all.length; k++) longest = Math.max(longest ?? 0, all[k][0] - all[k - 1][1]);
  return {
    timed_turns: entries.length,
    responses: latencies.length,
    latency_ms: latencyPercentilesMs(latencies),
    agent_talk_s: agentTalk,
    user_talk_s: userTalk,
    talk_ratio: agentTalk + userTalk > 0 ? agentTalk / (agentTalk + userTalk) : null,
    overlap_s: intersection(agent, user),
    user_barge_ins: transitions.filter((t) => t.kind === "user_barge_in").length,
    agent_overlaps: transitions.filter((t) => t.kind === "agent_overlap").length,
    longest_silence_s: longest,
  };
}

/** The figures of a result record's turns (with the timeline and transitions they come from). */
export function statsOfTurnRecords(turns: readonly TurnRecord[]): { stats: CallStats; entries: TimelineEntry[]; transitions: Transition[]; latenciesMs: number[] } {
  const entries = timelineOfTurnRecords(turns);
  const transitions = findTransitions(entries);
  return { stats: statsOfTimeline(entries, transitions), entries, transitions, latenciesMs: responseLatenciesMs(transitions, entries) };
}
