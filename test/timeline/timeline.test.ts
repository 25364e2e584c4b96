// The call timeline (voice-metrics.md §4.3, §5.4): placement and order of clips, transitions between speakers, response latencies.
import { describe, expect, it } from "vitest";
import { Audio } from "../../src/model/audio.js";
import type { Role, Turn } from "../../src/model/test-case.js";
import { buildTimeline, findTransitions, latencySummaryMs, responseLatenciesMs } from "../../src/timeline/index.js";

/** A turn with audio starting at `start` (null: no start_time), or no audio at all. */
function turn(role: Role, start: number | null | "none"): Turn {
  if (start === "none") return { role, content: "" };
  return { role, content: "", audio: Audio.fromBytes(new Uint8Array(4), "audio/wav", { start_time: start }) };
}

describe("buildTimeline", () => {
  it("places clips at their start_time, sorts by (start, turn index) and drops unknown durations and missing start times", () => {
    const turns = [turn("user", 2), turn("assistant", 0), turn("user", "none"), turn("assistant", null), turn("user", 2), turn("assistant", 5)];
    const durations = [1.5, 1, 9, 3, 0.25, null];
    const entries = buildTimeline(turns, (i) => durations[i]);
    expect(entries).toEqual([
      { turn_index: 1, role: "assistant", start_time: 0, duration: 1, end_time: 1 },
      { turn_index: 0, role: "user", start_time: 2, duration: 1.5, end_time: 3.5 },
      { turn_index: 4, role: "user", start_time: 2, duration: 0.25, end_time: 2.25 },
    ]);
  });

  it("without required start times, places untimed clips at the running end of the clips before them", () => {
    const turns = [turn("user", 1), turn("assistant", null), turn("user", 0.5), turn("assistant", null)];
    const entries = buildTimeline(turns, () => 2, false);
    expect(entries.map((e) => [e.turn_index, e.start_time, e.end_time])).toEqual([
      [2, 0.5, 2.5],
      [0, 1, 3],
      [1, 3, 5],
      [3, 5, 7],
    ]);
  });
});

describe("findTransitions and latencies", () => {
  const entry = (turn_index: number, role: Role, start_time: number, end_time: number) => ({ turn_index, role, start_time, duration: end_time - start_time, end_time });

  it("classifies cross-speaker pairs as gap, user barge-in or agent overlap and ignores same-role pairs", () => {
    const entries = [entry(0, "user", 0, 2), entry(1, "assistant", 2.5, 4), entry(2, "user", 3.5, 5), entry(3, "user", 5.5, 6), entry(4, "assistant", 5.8, 7)];
    const transitions = findTransitions(entries);
    expect(transitions.map((t) => [t.from_turn, t.to_turn, t.kind])).toEqual([
      [0, 1, "gap"],
      [1, 2, "user_barge_in"],
      [3, 4, "agent_overlap"],
    ]);
    expect(transitions[0].gap_seconds).toBeCloseTo(0.5, 12);
    expect(transitions[1].gap_seconds).toBeCloseTo(-0.5, 12);
    expect(transitions[2].gap_seconds).toBeCloseTo(-0.2, 12);
    // A gap of exactly 0 is a gap, not an overlap.
    expect(findTransitions([entry(0, "assistant", 0, 1), entry(1, "user", 1, 2)])[0].kind).toBe("gap");
  });

  it("response latencies are the user → assistant transitions in ms (negative kept); p50/p95/p99 interpolate", () => {
    const entries = [entry(0, "user", 0, 1), entry(1, "assistant", 1.2, 3), entry(2, "user", 3.5, 4), entry(3, "assistant", 3.9, 5), entry(4, "user", 6, 7), entry(5, "assistant", 8, 9)];
    const latencies = responseLatenciesMs(findTransitions(entries), entries);
    expect(latencies.map((x) => Math.round(x))).toEqual([200, -100, 1000]);
    const summary = latencySummaryMs(latencies);
    expect(summary).toMatchObject({ count: 3, p95: null, p99: null });
    expect(summary.p50).toBeCloseTo(200, 9);
    // p95 from 20 samples, p99 from 100: 1..100 ms.
    const many = Array.from({ length: 100 }, (_, k) => k + 1);
    expect(latencySummaryMs(many.slice(0, 19)).p95).toBeNull();
    expect(latencySummaryMs(many.slice(0, 20)).p95).toBeCloseTo(1 + 0.95 * 19, 9);
    expect(latencySummaryMs(many.slice(0, 99)).p99).toBeNull();
    expect(latencySummaryMs(many)).toMatchObject({ count: 100, p50: 50.5 });
    expect(latencySummaryMs(many).p99).toBeCloseTo(1 + 0.99 * 99, 9);
    expect(latencySummaryMs([])).toEqual({ count: 0, p50: null, p95: null, p99: null });
  });

  it("an agent clip that starts with (or before) its caller clip is no response", () => {
    // Both channels' clips start at 0 (a recording cut per speaker): not a −3,740 ms latency.
    const entries = [entry(0, "user", 0, 3.74), entry(1, "assistant", 0, 2)];
    expect(findTransitions(entries)).toHaveLength(1);
    expect(responseLatenciesMs(findTransitions(entries), entries)).toEqual([]);
  });
});
