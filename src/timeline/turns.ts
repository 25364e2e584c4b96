// Per-agent-turn timing on the call timeline: caller→agent latencies (with overlap) and agent→caller transitions kept apart, and EVA's percentile rule (acoustics.md §7.2–7.3).
import type { TimelineEntry, Transition } from "./index.js";

/** One caller→agent hand-over: the agent turn, its latency and how the caller's previous turn began. */
export interface AgentReply {
  /** Turn index of the agent turn. */
  agent_turn: number;
  /** Turn index of the caller turn it answers. */
  caller_turn: number;
  /** Agent start − caller end (ms); negative = the agent talked over the caller. */
  latency_ms: number;
  /** Time both spoke (ms): max(0, −latency) bounded by both clips. */
  overlap_ms: number;
  /** How long the agent's previous turn kept going after this caller turn began (ms); 0 when the caller did not barge in. */
  yield_ms: number;
}

/** One agent→caller hand-over (the caller's reaction time; not the agent's to answer for). */
export interface CallerReply {
  agent_turn: number;
  caller_turn: number;
  /** Caller start − agent end (ms); negative = the caller barged in. */
  gap_ms: number;
}

/** Caller→agent replies and agent→caller transitions of a timeline, apart. */
export function splitReplies(entries: readonly TimelineEntry[], transitions: readonly Transition[]): { agent: AgentReply[]; caller: CallerReply[] } {
  const byTurn = new Map(entries.map((e) => [e.turn_index, e]));
  const agent: AgentReply[] = [];
  const caller: CallerReply[] = [];
  const bargeIns = new Map<number, number>();
  for (const t of transitions) {
    const from = byTurn.get(t.from_turn)!, to = byTurn.get(t.to_turn)!;
    if (from.role === "assistant" && to.role === "user") {
      caller.push({ agent_turn: t.from_turn, caller_turn: t.to_turn, gap_ms: t.gap_seconds * 1000 });
      if (t.gap_seconds < 0) bargeIns.set(t.to_turn, Math.min(-t.gap_seconds, to.duration) * 1000);
    }
  }
  for (const t of transitions) {
    const from = byTurn.get(t.from_turn)!, to = byTurn.get(t.to_turn)!;
    if (from.role !== "user" || to.role !== "assistant") continue;
    const latency = t.gap_seconds * 1000;
    agent.push({
      agent_turn: t.to_turn,
      caller_turn: t.from_turn,
      latency_ms: latency,
      overlap_ms: latency < 0 ? Math.min(-latency, from.duration * 1000, to.duration * 1000) : 0,
      yield_ms: bargeIns.get(t.from_turn) ?? 0,
    });
  }
  return { agent, caller };
}

/** EVA's percentile: sorted[min(n − 1, ⌊p·n⌋)] for p in [0, 1]; null when empty. */
export function evaPercentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
