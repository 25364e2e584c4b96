// The two event detectors behind Agent Responsiveness, Audio Integrity and Voice Reliability (voice-metrics.md §5.5–5.6).
import type { CallAnalysis } from "../analysis/call.js";
import { pyStrip } from "../analysis/python-text.js";
import { isMeasurementError } from "../analysis/types.js";
import type { ConversationalTestCase } from "../model/test-case.js";
import { clamp01 } from "./base-metric.js";

/** User texts that close the conversation and owe no reply (plain suffix test after normalisation). */
const SIGN_OFFS = ["bye", "goodbye", "thank you", "thanks", "that's all", "that is all"];
const UNEXPECTED_END_REASONS = new Set(["AGENT_HANGUP", "ERROR", "IDLE_TIMEOUT"]);
const REPROMPT_PENALTY = 0.25;

const ABRUPT_CUTOFF_PENALTY = 0.12;
const LOOP_STEP = 0.15;
const LOOP_CAP = 0.4;
const LOOP_CRITICAL_COUNT = 3;
const DROPOUT_STEP = 0.08;
const DROPOUT_CAP = 0.35;
const CLIPPING_TRIGGER = 0.01;
const CLIPPING_SLOPE = 10.0;
const CLIPPING_CAP = 0.35;

export type DetectorEvent = Record<string, unknown> & { type: string; critical: boolean };

export interface DetectorResult {
  score: number;
  critical_failure: boolean;
  events: DetectorEvent[];
}

/** Python truthiness (empty containers are false, unlike JavaScript). */
function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

/** True when a user turn's text expects an answer. */
export function owesReply(content: string): boolean {
  const normalized = pyStrip(content).toLowerCase().replace(/[.!]+$/, "");
  return !SIGN_OFFS.some((s) => normalized.endsWith(s));
}

/** Agent Responsiveness events: unanswered user turns, reprompts, missing reply audio, unexpected endings. */
export function detectResponsiveness(testCase: ConversationalTestCase): DetectorResult {
  const events: DetectorEvent[] = [];
  let reprompts = 0;
  const turns = testCase.turns;
  turns.forEach((turn, i) => {
    if (turn.role !== "user" || !owesReply(turn.content)) return;
    const next = turns[i + 1];
    if (!next) events.push({ type: "agent_failed_to_respond", turn: i, critical: true });
    else if (next.role === "user") {
      events.push({ type: "user_reprompted", turn: i + 1, critical: false });
      reprompts += 1;
    } else if (!next.audio) events.push({ type: "assistant_audio_missing", turn: i + 1, critical: true });
  });
  const meta = testCase.metadata ?? {};
  const endReason = pyTruthy(meta.end_reason) ? meta.end_reason : meta.endReason;
  if (typeof endReason === "string" && UNEXPECTED_END_REASONS.has(endReason.toUpperCase())) {
    events.push({ type: "unexpected_end", end_reason: endReason, critical: true });
  }
  const critical = events.some((e) => e.critical);
  return { score: critical ? 0.0 : clamp01(1.0 - REPROMPT_PENALTY * reprompts), critical_failure: critical, events };
}

/** Audio Integrity events over assistant clips: missing or undecodable audio, cut-offs, loops, dropouts, clipping. */
export function detectAudioIntegrity(testCase: ConversationalTestCase, ctx: CallAnalysis): DetectorResult {
  if (!testCase.turns.some((t) => t.role === "assistant")) {
    return { score: 0.0, critical_failure: true, events: [{ type: "assistant_turn_missing", critical: true }] };
  }
  const events: DetectorEvent[] = [];
  let penalty = 0.0;
  testCase.turns.forEach((turn, i) => {
    if (turn.role !== "assistant") return;
    const clip = ctx.clip(i);
    if (!clip) {
      events.push({ type: "audio_missing", turn: i, critical: true });
      return;
    }
    const m = clip.measurements;
    if (isMeasurementError(m)) {
      events.push({ type: "audio_undecodable", turn: i, critical: true, reason: m.error });
      return;
    }
    if (m.ends_abruptly) {
      events.push({ type: "abrupt_cutoff", turn: i, critical: false });
      penalty += ABRUPT_CUTOFF_PENALTY;
    }
    if (m.loop_events > 0) {
      const severity = Math.min(LOOP_CAP, m.loop_events * LOOP_STEP);
      events.push({ type: "audio_loop", turn: i, count: m.loop_events, severity, critical: m.loop_events >= LOOP_CRITICAL_COUNT });
      penalty += severity;
    }
    if (m.dropout_events > 0) {
      const severity = Math.min(DROPOUT_CAP, m.dropout_events * DROPOUT_STEP);
      events.push({ type: "audio_dropout", turn: i, count: m.dropout_events, severity, critical: false });
      penalty += severity;
    }
    if (m.clipping_fraction > CLIPPING_TRIGGER) {
      const severity = Math.min(CLIPPING_CAP, m.clipping_fraction * CLIPPING_SLOPE);
      events.push({ type: "clipping", turn: i, fraction: m.clipping_fraction, severity, critical: false });
      penalty += severity;
    }
  });
  const critical = events.some((e) => e.critical);
  return { score: critical ? 0.0 : clamp01(1.0 - penalty), critical_failure: critical, events };
}

/** "A critical … failure occurred: a, b, c." — every event type, critical or not. */
export function criticalReason(kind: string, events: readonly DetectorEvent[]): string {
  return `A critical ${kind} failure occurred: ${events.map((e) => e.type).join(", ")}.`;
}
