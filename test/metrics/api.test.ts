// deepeval-style metric API: measure(), evaluate(), options (include_reason, strict, threshold null, flaky), verbose logs.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDeepevalJsonFile } from "../../src/ingest/formats/deepeval-json.js";
import {
  AudioIntegrityMetric,
  createMetrics,
  evaluate,
  METRICS,
  VoiceConsistencyMetric,
  VoiceNaturalnessMetric,
} from "../../src/metrics/index.js";
import type { ConversationalTestCase } from "../../src/model/test-case.js";
import { REPO_ROOT } from "../helpers/shared.js";

const load = (id: string): ConversationalTestCase =>
  loadDeepevalJsonFile(join(REPO_ROOT, "fixtures", "reference-vectors", `${id}.json`), { compat: "deepeval" })[0].testCase!;

describe("metric objects", () => {
  it("measure() sets score, reason, success, breakdown and verbose logs", () => {
    const m = new AudioIntegrityMetric();
    expect(m.measure(load("F"))).toBeCloseTo(0.76, 12);
    expect(m.reason).toBe("Audio integrity was 0.76; 2 defect event(s) were detected.");
    expect(m.success).toBe(true);
    expect(m.skipped).toBe(false);
    expect(m.threshold).toBe(0.5);
    expect(m.verbose_logs?.startsWith("Breakdown: ")).toBe(true);
  });
  it("include_reason false drops the reason; strict stores threshold 1.0", () => {
    const m = new VoiceNaturalnessMetric({ include_reason: false, strict_mode: true });
    expect(m.threshold).toBe(1.0);
    expect(m.measure(load("F"))).toBe(0);
    expect(m.reason).toBeNull();
    expect(m.success).toBe(false);
  });
  it("a skipped metric has success false (or null in score-only mode)", () => {
    const m = new VoiceConsistencyMetric();
    expect(m.measure(load("U"))).toBeNull();
    expect([m.skipped, m.success]).toEqual([true, false]);
    const scoreOnly = new VoiceConsistencyMetric({ threshold: null });
    scoreOnly.measure(load("U"));
    expect(scoreOnly.success).toBeNull();
  });
  it("rejects what is not a conversational test case", () => {
    const m = new AudioIntegrityMetric();
    expect(() => m.measure({} as ConversationalTestCase)).toThrow(
      "Unable to evaluate test cases that are not of type 'ConversationalTestCase' using the conversational 'Audio Integrity' metric.",
    );
  });
  it("createMetrics accepts ids and display names, and names the allowed ones on a typo", () => {
    expect(createMetrics(["naturalness", "Audio Integrity", "turn_taking"]).map((m) => m.name)).toEqual([
      "Voice Naturalness",
      "Audio Integrity",
      "Turn-Taking Naturalness",
    ]);
    expect(createMetrics().map((m) => m.name)).toEqual(METRICS.map((m) => m.name));
    expect(() => createMetrics(["loudness"])).toThrow(/unknown metric "loudness"; choose from naturalness/);
  });
});

describe("evaluate()", () => {
  it("leaves skipped metrics out, fails on a failing metric, ignores flaky ones", () => {
    const [u] = evaluate([load("U")]);
    expect(u.skipped).toEqual(["Voice Naturalness", "Speech Intelligibility", "Voice Consistency", "Turn-Taking Naturalness"]);
    expect(Object.keys(u.metrics)).toEqual(["Agent Responsiveness", "Audio Integrity", "Voice Reliability"]);
    expect(u.success).toBe(false);
    const [flaky] = evaluate([load("U")], createMetrics([], { flaky: true }));
    expect(flaky.success).toBe(true);
  });
  it("does not change the metric objects passed in", () => {
    const m = new AudioIntegrityMetric();
    evaluate([load("F"), load("Zc")], [m]);
    expect(m.score).toBeNull();
  });
});
