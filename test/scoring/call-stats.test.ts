// Conversation figures of a result record (latency percentiles, talk ratio, overlap, barge-ins, longest silence) on a hand-worked call, and their path into the summary and the CSV.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverCalls } from "../../src/ingest/index.js";
import { csvRows, SummaryAccumulator } from "../../src/report/index.js";
import { digestRecord, latencyPercentilesMs, resolveScoreOptions, scoreCall, statsOfTurnRecords, timelineOfCall, type ResultRecord, type TurnRecord } from "../../src/scoring/index.js";
import { LATENCY_PERCENTILE_MIN_SAMPLES, responseLatenciesMs } from "../../src/timeline/index.js";
import { REPO_ROOT } from "../helpers/shared.js";

function turn(index: number, role: "user" | "assistant", start: number | null, end: number): TurnRecord {
  return { index, role, start_time: start, duration: start === null ? end : end - start, measurements: { error: "not measured here" } } as TurnRecord;
}

// user 0–2 · assistant 2.5–5 (latency 500 ms) · user 4.5–6 (barge-in) · assistant 5.8–8 (agent overlap,
// latency −200 ms) · user 11–12 · assistant 12.3–13 (latency 300 ms) · an untimed user turn.
const TURNS: TurnRecord[] = [
  turn(0, "user", 0, 2),
  turn(1, "assistant", 2.5, 5),
  turn(2, "user", 4.5, 6),
  turn(3, "assistant", 5.8, 8),
  turn(4, "user", 11, 12),
  turn(5, "assistant", 12.3, 13),
  turn(6, "user", null, 1),
];

function record(id: string, turns: TurnRecord[]): ResultRecord {
  return { id, name: null, source: { format: "deepeval-json", path: "a.json" }, status: "ok", error: null, metrics: {}, turns, elapsed_ms: 1 };
}

describe("call stats", () => {
  it("computes latency percentiles, talk ratio, overlap, barge-ins and longest silence from the timed turns", () => {
    const { stats, transitions, latenciesMs } = statsOfTurnRecords(TURNS);
    expect(transitions.map((t) => t.kind)).toEqual(["gap", "user_barge_in", "agent_overlap", "gap", "gap"]);
    expect(latenciesMs.map((l) => Math.round(l))).toEqual([500, -200, 300]);
    expect(stats.timed_turns).toBe(6);
    expect(stats.responses).toBe(3);
    // sorted [−200, 300, 500]: p50 = 300, p90 at rank 1.8 = 460, p95 at 1.9 = 480, p99 at 1.98 = 496.
    expect(stats.latency_ms.p50).toBeCloseTo(300, 9);
    expect(stats.latency_ms.p90).toBeCloseTo(460, 9);
    expect(stats.latency_ms.p95).toBeCloseTo(480, 9);
    expect(stats.latency_ms.p99).toBeCloseTo(496, 9);
    expect(stats.agent_talk_s).toBeCloseTo(5.4, 9);
    expect(stats.user_talk_s).toBeCloseTo(4.5, 9);
    expect(stats.talk_ratio).toBeCloseTo(5.4 / 9.9, 9);
    expect(stats.overlap_s).toBeCloseTo(0.7, 9);
    expect(stats.user_barge_ins).toBe(1);
    expect(stats.agent_overlaps).toBe(1);
    expect(stats.longest_silence_s).toBeCloseTo(3, 9);
  });

  it("has no figures to invent for a call without timed turns", () => {
    const { stats } = statsOfTurnRecords([turn(0, "user", null, 1)]);
    expect(stats).toMatchObject({ timed_turns: 0, responses: 0, talk_ratio: null, overlap_s: 0, longest_silence_s: null });
    expect(stats.latency_ms).toEqual({ p50: null, p90: null, p95: null, p99: null });
  });

  it("reaches the summary (pooled latencies, summed talk) and the CSV columns", () => {
    const acc = new SummaryAccumulator();
    const a = digestRecord(record("a", TURNS));
    // A second call: user 0–1, assistant 2–3 (latency 1000 ms), no overlap.
    const b = digestRecord(record("b", [turn(0, "user", 0, 1), turn(1, "assistant", 2, 3)]));
    acc.add(a);
    acc.add(b);
    acc.add(digestRecord(record("c", [])));
    const c = acc.summary(1).conversation;
    expect(c.calls).toBe(2);
    expect(c.responses).toBe(4);
    // pooled [−200, 300, 500, 1000]: p50 at rank 1.5 = 400.
    expect(c.latency_ms.p50).toBeCloseTo(400, 9);
    expect(c.talk_ratio).toBeCloseTo(6.4 / 11.9, 9);
    expect(c.overlap_s.total).toBeCloseTo(0.7, 9);
    expect(c.overlap_s.mean_per_call).toBeCloseTo(0.35, 9);
    expect(c.user_barge_ins).toEqual({ total: 1, calls_with: 1 });
    expect(c.agent_overlaps).toEqual({ total: 1, calls_with: 1 });
    expect(c.longest_silence_s.max).toBeCloseTo(3, 9);
    const row = csvRows(b)[0].split(",");
    // The nine conversation columns, then wer and cer (empty: no transcript pairs here).
    expect(row.slice(-11, -2).map(Number)).toEqual([1000, 1000, 1000, 1000, 0.5, 0, 0, 0, 1]);
    expect(row.slice(-2)).toEqual(["", ""]);
  });
});

describe("call stats of scored records", () => {
  it("match `voxmetrics timeline` on every call of the sample archive: same entries, transitions and latency percentiles", () => {
    const { calls } = discoverCalls([join(REPO_ROOT, "fixtures", "sample-archive")]);
    const score = resolveScoreOptions({});
    let compared = 0;
    for (const ref of calls) {
      const record = scoreCall({ ref, ingest: {}, score });
      if (record.status !== "ok") continue;
      const timeline = timelineOfCall(ref, { compat: score.compat }).record;
      const { entries, transitions, stats, latenciesMs } = statsOfTurnRecords(record.turns!);
      expect(entries.map((e) => [e.turn_index, e.role]), ref.id).toEqual(timeline.entries.map((e) => [e.turn_index, e.role]));
      for (let i = 0; i < entries.length; i++) expect(entries[i].end_time).toBeCloseTo(timeline.entries[i].end_time, 9);
      expect(transitions.map((t) => t.kind)).toEqual(timeline.transitions.map((t) => t.kind));
      // The same caller → agent latencies, one by one.
      const timelineLatencies = responseLatenciesMs(timeline.transitions, timeline.entries);
      expect(stats.responses, ref.id).toBe(timeline.latency_ms.count);
      expect(latenciesMs.length).toBe(timelineLatencies.length);
      latenciesMs.forEach((l, i) => expect(l).toBeCloseTo(timelineLatencies[i], 6));
      // The timeline gives a percentile only from enough samples (p95 from 20, p99 from 100); the call's
      // figures always give it. Where the timeline gives one, they agree; where it does not, it is for want of samples.
      const all = latencyPercentilesMs(timelineLatencies);
      for (const q of ["p50", "p95", "p99"] as const) {
        if (timeline.latency_ms[q] === null) {
          expect(timeline.latency_ms.count).toBeLessThan(LATENCY_PERCENTILE_MIN_SAMPLES[q]);
          if (all[q] === null) expect(stats.latency_ms[q]).toBeNull();
          else expect(stats.latency_ms[q]).toBeCloseTo(all[q]!, 6);
        } else expect(stats.latency_ms[q]).toBeCloseTo(timeline.latency_ms[q]!, 6);
      }
      if (entries.length > 0) compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(5);
  });
});
