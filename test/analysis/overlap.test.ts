// Overlap, talk-over events, talk ratio and silence share of two timelines (acoustics.md §2.4, §7.1).
import { describe, expect, it } from "vitest";
import { measureOverlap } from "../../src/analysis/overlap.js";

describe("measureOverlap", () => {
  it("measures overlap and attributes talk-over events to who started them", () => {
    const r = measureOverlap([[0, 2], [3, 5]], [[1.5, 3.5], [6, 7]], 10);
    expect(r.overlap_s).toBeCloseTo(1, 12);
    expect(r.talk_over_events).toEqual({ a_started: 1, b_started: 1 });
    expect(r.talk_ratio.a!).toBeCloseTo(4 / 7, 12);
    expect(r.talk_ratio.b!).toBeCloseTo(3 / 7, 12);
    expect(r.silence_share!).toBeCloseTo(0.4, 12);
    expect(r.a_speech_s).toBe(4);
    expect(r.b_speech_s).toBe(3);
  });

  it("merges a party's own overlapping segments, clips to the call and ignores simultaneous starts", () => {
    const r = measureOverlap([[-1, 1], [0.5, 2], [9, 12]], [[0, 1]], 10);
    expect(r.a_speech_s).toBe(3);
    expect(r.overlap_s).toBe(1);
    expect(r.talk_over_events).toEqual({ a_started: 0, b_started: 0 });
  });

  it("gives nulls when nobody speaks or the call is empty", () => {
    expect(measureOverlap([], [], 5)).toEqual({ overlap_s: 0, talk_over_events: { a_started: 0, b_started: 0 }, talk_ratio: { a: null, b: null }, silence_share: 1, a_speech_s: 0, b_speech_s: 0 });
    expect(measureOverlap([], [], 0).silence_share).toBeNull();
  });
});
