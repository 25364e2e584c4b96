// Word and character error rates of a call's transcripts wherever a reference and a hypothesis both exist: how well the agent heard the caller, and whether the agent said what it meant.
import type { EditCounts } from "../text/align.js";
import { compareTranscripts, sumErrorCounts } from "../text/error-rate.js";
import type { ConversationalTestCase } from "../model/test-case.js";

/**
 * Which pair a turn's rates compare:
 * - `agent_heard_caller`: a user turn's `content` (what the caller said, e.g. its script), or
 *   `metadata.agent_heard_reference` when the simulator recorded what was actually spoken (a duplex
 *   turn cut short, or turns the agent heard as one utterance), against `metadata.agent_transcript`
 *   (the caller's words as the agent transcribed them);
 * - `agent_said_vs_stt`: an assistant turn's `content` (the agent's own transcript) against
 *   `metadata.stt_transcript` (speech-to-text of the audio it played).
 */
export type TranscriptPairKind = "agent_heard_caller" | "agent_said_vs_stt";

export interface ErrorCountsRecord {
  /** (S + D + I) / N; null when the reference has no words. */
  wer: number | null;
  /** The same over characters (spaces left out); null when the reference has none. */
  cer: number | null;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** N: reference words. */
  reference_words: number;
  /** Character-level counts behind `cer`. */
  characters: { substitutions: number; deletions: number; insertions: number; reference_characters: number };
}

export interface TurnTranscriptAccuracy extends ErrorCountsRecord {
  index: number;
  role: "user" | "assistant";
  kind: TranscriptPairKind;
  reference: string;
  hypothesis: string;
}

/** A call's rates: counts summed over its turns (not a mean of turn rates), in total and per kind. */
export interface TranscriptAccuracy extends ErrorCountsRecord {
  by_kind: Partial<Record<TranscriptPairKind, ErrorCountsRecord>>;
  turns: TurnTranscriptAccuracy[];
}

const round6 = (v: number | null) => (v === null ? null : Math.round(v * 1e6) / 1e6);

function record(words: EditCounts[], chars: EditCounts[]): ErrorCountsRecord {
  const w = sumErrorCounts(words);
  const c = sumErrorCounts(chars);
  return {
    wer: round6(w.rate),
    cer: round6(c.rate),
    substitutions: w.substitutions,
    deletions: w.deletions,
    insertions: w.insertions,
    reference_words: w.referenceLength,
    characters: { substitutions: c.substitutions, deletions: c.deletions, insertions: c.insertions, reference_characters: c.referenceLength },
  };
}

/** The transcript pairs of a test case and their rates; null when no turn holds both sides. */
export function transcriptAccuracy(testCase: ConversationalTestCase): TranscriptAccuracy | null {
  const turns: TurnTranscriptAccuracy[] = [];
  const counts: Array<{ kind: TranscriptPairKind; words: EditCounts; chars: EditCounts }> = [];
  testCase.turns.forEach((t, index) => {
    const key = t.role === "user" ? "agent_transcript" : "stt_transcript";
    const hypothesis = t.metadata?.[key];
    // A duplex caller turn cut short, or several turns the agent heard as one, name what was actually said.
    const spoken = t.role === "user" ? t.metadata?.agent_heard_reference : undefined;
    const reference = typeof spoken === "string" ? spoken : t.content;
    if (typeof hypothesis !== "string" || reference.trim() === "") return;
    const kind: TranscriptPairKind = t.role === "user" ? "agent_heard_caller" : "agent_said_vs_stt";
    const c = compareTranscripts(reference, hypothesis);
    counts.push({ kind, words: c.words, chars: c.characters });
    turns.push({ index, role: t.role, kind, reference, hypothesis, ...record([c.words], [c.characters]) });
  });
  if (turns.length === 0) return null;
  const by_kind: TranscriptAccuracy["by_kind"] = {};
  for (const kind of ["agent_heard_caller", "agent_said_vs_stt"] as const) {
    const of = counts.filter((c) => c.kind === kind);
    if (of.length) by_kind[kind] = record(of.map((c) => c.words), of.map((c) => c.chars));
  }
  return { ...record(counts.map((c) => c.words), counts.map((c) => c.chars)), by_kind, turns };
}
