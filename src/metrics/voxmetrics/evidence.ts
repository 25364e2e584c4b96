// Per-turn evidence shared by the profile's metrics: integrity of each agent turn, and responsiveness with silent agent turns.
import type { IntegrityBlock } from "../../analysis/integrity.js";
import type { ConversationalTestCase } from "../../model/test-case.js";
import { clamp01 } from "../base-metric.js";
import { detectResponsiveness, owesReply, type DetectorEvent } from "../detectors.js";
import type { AgentTurn } from "./base.js";
import { rate, type Evidence, type VoxmetricsProfileOptions } from "./options.js";

/** Dropouts per second of measured speech (at least one second counted, so a short turn is not over-penalised). */
export function dropoutRate(m: IntegrityBlock): number {
  return m.dropouts.count / Math.max(1, m.measured_s);
}

/** The stream-defect evidence of one measured, audible turn: dropouts, clipping, repeats. */
export function defectEvidence(m: IntegrityBlock, o: VoxmetricsProfileOptions): Record<string, Evidence> {
  return {
    dropout_rate: rate(dropoutRate(m), o.dropoutRatePerS, "per s of speech"),
    clipped_fraction: rate(m.clipped_fraction, o.clippedFraction, "fraction of speech samples"),
    repeated_s: rate(m.repeats.repeated_s, o.repeatedS, "s"),
  };
}

export interface IntegrityTurnResult {
  turn: number;
  score: number;
  defects: string[];
  evidence?: Record<string, Evidence>;
  error?: string;
}

export interface IntegrityResult {
  score: number;
  critical_failure: boolean;
  events: DetectorEvent[];
  turns: IntegrityTurnResult[];
}

/** Integrity of every agent turn (missing, undecodable and silent turns score 0), averaged; criticals: no agent turn, a looping turn. */
export function assessIntegrity(turns: readonly AgentTurn[], o: VoxmetricsProfileOptions): IntegrityResult {
  const events: DetectorEvent[] = [];
  if (turns.length === 0) {
    return { score: 0, critical_failure: true, events: [{ type: "assistant_turn_missing", critical: true }], turns: [] };
  }
  const results: IntegrityTurnResult[] = turns.map((t) => {
    if (t.status === "missing") {
      events.push({ type: "audio_missing", turn: t.index, critical: false });
      return { turn: t.ordinal, score: 0, defects: ["audio_missing"] };
    }
    if (t.status === "undecodable") {
      events.push({ type: "audio_undecodable", turn: t.index, critical: false, reason: t.error });
      return { turn: t.ordinal, score: 0, defects: ["audio_undecodable"], error: t.error };
    }
    const m = t.integrity!;
    if (!m.audible) {
      events.push({ type: "silent_turn", turn: t.index, critical: false });
      return { turn: t.ordinal, score: 0, defects: ["silent_turn"] };
    }
    const evidence: Record<string, Evidence> = {
      ...defectEvidence(m, o),
      truncated: { value: m.truncated ? 1 : 0, unit: "boolean", band: m.truncated ? "bad" : "good", score: m.truncated ? o.truncatedFactor : 1 },
    };
    const defects: string[] = [];
    if (m.dropouts.count > 0) defects.push("dropout");
    if (evidence.clipped_fraction.band !== "good") defects.push("clipping");
    if (m.repeats.count > 0) defects.push("repeat");
    if (m.truncated) defects.push("truncated");
    const looping = m.repeats.count >= o.loopCriticalCount;
    for (const d of defects) events.push({ type: d === "repeat" ? "audio_loop" : d === "dropout" ? "audio_dropout" : d === "truncated" ? "abrupt_cutoff" : d, turn: t.index, critical: d === "repeat" && looping });
    const score = clamp01(Object.values(evidence).reduce((p, e) => p * e.score, 1));
    // A turn whose audio is wholly broken (a sub-score at its floor of 0) is a critical failure, as missing audio is in deepeval.
    if (score === 0) events.push({ type: "broken_turn", turn: t.index, critical: true });
    return { turn: t.ordinal, score, defects, evidence };
  });
  const score = results.reduce((s, r) => s + r.score, 0) / results.length;
  return { score, critical_failure: events.some((e) => e.critical), events, turns: results };
}

export interface ResponsivenessResult {
  score: number;
  critical_failure: boolean;
  events: DetectorEvent[];
}

/** deepeval's responsiveness rules plus silent agent turns: critical when the caller still waits for a reply, else a penalty. */
export function assessResponsiveness(testCase: ConversationalTestCase, turns: readonly AgentTurn[], o: VoxmetricsProfileOptions): ResponsivenessResult {
  const base = detectResponsiveness(testCase);
  const events = [...base.events];
  const reprompts = events.filter((e) => e.type === "user_reprompted").length;
  let silentPenalty = 0;
  for (const t of turns) {
    if (t.status !== "ok" || t.integrity!.audible) continue;
    const prev = testCase.turns[t.index - 1];
    const waiting = prev !== undefined && prev.role === "user" && owesReply(prev.content);
    events.push({ type: "agent_silent", turn: t.index, critical: waiting });
    if (!waiting) silentPenalty += o.silentTurnPenalty;
  }
  const critical = events.some((e) => e.critical);
  return { score: critical ? 0 : clamp01(1 - o.repromptPenalty * reprompts - silentPenalty), critical_failure: critical, events };
}
