// Transcript accuracy in score records, the summary and the CSV: per-turn WER / CER / S D I where a reference and a hypothesis both exist, call rates from summed counts.
import { describe, expect, it } from "vitest";
import { compareTranscripts, createTestCase } from "../../src/index.js";
import { toOutcome, type ResultRecord } from "../../src/scoring/record.js";
import { transcriptAccuracy } from "../../src/scoring/transcript-accuracy.js";
import { csvRows, formatSummaryTable, SummaryAccumulator } from "../../src/report/index.js";

const tc = createTestCase({
  turns: [
    { role: "user", content: "Where is my order number forty two?", metadata: { agent_transcript: "where is my order number 42" } },
    { role: "assistant", content: "It ships tomorrow.", metadata: { stt_transcript: "it ships to morrow" } },
    { role: "user", content: "I'd like a refund.", metadata: { agent_transcript: "i would like the refund please" } },
    { role: "assistant", content: "Sure.", metadata: {} },
    { role: "user", content: "", metadata: { agent_transcript: "noise" } },
  ],
});

describe("transcriptAccuracy", () => {
  it("compares each pair that exists (numbers, contractions and case normalised) and sums counts for the call", () => {
    const a = transcriptAccuracy(tc)!;
    expect(a.turns.map((t) => [t.index, t.kind])).toEqual([
      [0, "agent_heard_caller"],
      [1, "agent_said_vs_stt"],
      [2, "agent_heard_caller"],
    ]);
    expect(a.turns[0]).toMatchObject({ wer: 0, substitutions: 0, deletions: 0, insertions: 0, reference_words: 6 });
    const second = compareTranscripts("It ships tomorrow.", "it ships to morrow");
    expect(a.turns[1]).toMatchObject({ substitutions: second.words.substitutions, deletions: second.words.deletions, insertions: second.words.insertions, reference_words: 3 });
    expect(second.words.substitutions + second.words.insertions).toBe(2);
    const third = compareTranscripts("I'd like a refund.", "i would like the refund please");
    expect(a.turns[2]).toMatchObject({ substitutions: 1, insertions: 1, deletions: 0, reference_words: 5 });
    expect(third.wer).toBeCloseTo(2 / 5, 12);
    const errors = [0, 1, 2].reduce((s, i) => s + a.turns[i].substitutions + a.turns[i].deletions + a.turns[i].insertions, 0);
    expect(a.reference_words).toBe(6 + 3 + 5);
    expect(a.wer).toBeCloseTo(errors / 14, 6);
    expect(a.by_kind.agent_heard_caller!.reference_words).toBe(11);
    expect(a.by_kind.agent_said_vs_stt!.wer).toBeCloseTo(2 / 3, 6);
    expect(transcriptAccuracy(createTestCase({ turns: [{ role: "user", content: "hi" }] }))).toBeNull();
  });

  it("appears in the record digest (without the turn list), the summary (summed over calls), the CSV and the table", () => {
    const a = transcriptAccuracy(tc)!;
    const rec: ResultRecord = { id: "x", name: "x", source: { format: "deepeval-json", path: "x.json" }, status: "ok", error: null, metrics: { M: { score: 1, threshold: 0.5, success: true, skipped: false, strict_mode: false, reason: "r", score_breakdown: null, error: null } }, turns: [], transcript_accuracy: a, elapsed_ms: 1 };
    const { digest, line } = toOutcome(rec);
    expect(JSON.parse(Buffer.from(line!).toString("utf8")).transcript_accuracy.turns).toHaveLength(3);
    expect(digest.transcript_accuracy).toEqual(Object.fromEntries(Object.entries(a).filter(([k]) => k !== "turns")));
    const acc = new SummaryAccumulator();
    acc.add(digest);
    acc.add(digest);
    acc.add({ ...digest, id: "y", transcript_accuracy: undefined });
    const s = acc.summary(1);
    expect(s.transcript_accuracy).toMatchObject({ calls: 2, reference_words: 28, substitutions: 2 * a.substitutions });
    expect(s.transcript_accuracy!.wer).toBeCloseTo(a.wer!, 6);
    const row = csvRows(digest)[0].split(",");
    expect(row.slice(-2).map(Number)).toEqual([a.wer, a.cer]);
    expect(csvRows({ ...digest, transcript_accuracy: undefined })[0].endsWith(",,")).toBe(true);
    expect(formatSummaryTable(s)).toContain(`transcripts (2 call(s), 28 reference words): WER ${a.wer!.toFixed(3)}`);
  });
});
