// The library as TypeScript users meet it: Audio with a local path, parse results to narrow, assertTest / metrics_data, analyzeFile on a path or bytes, options validated.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  Audio,
  analyzeFile,
  assertTest,
  createMetrics,
  createTestCase,
  evaluate,
  loadDeepevalJsonFile,
  MetricAssertionError,
  resolveScoreOptions,
  VoiceNaturalnessMetric,
} from "../../src/index.js";
import { REPO_ROOT } from "../helpers/shared.js";

const SAMPLE = join(REPO_ROOT, "fixtures", "sample-archive");
const CLIP = join(SAMPLE, "clips", "agent-1.wav");
const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

describe("Audio with a local path", () => {
  it("reads the file relative to the working directory, or to an explicit baseDir, as deepeval's Audio does", () => {
    process.chdir(join(SAMPLE, "clips"));
    const a = new Audio({ url: "./agent-1.wav" });
    expect(a.local).toBe(true);
    expect(a.filename).toBe("agent-1.wav");
    expect(a.mimeType).toBe("audio/wav");
    expect(a.path).toBe(CLIP);
    expect(a.getBytes()).toEqual(new Uint8Array(readFileSync(CLIP)));
    process.chdir(REPO_ROOT);
    const b = new Audio({ url: "agent-1.wav", start_time: 1 }, { baseDir: join(SAMPLE, "clips") });
    expect(b.path).toBe(CLIP);
    expect(b.start_time).toBe(1);
    // A path that does not exist is deepeval's error, not a silent remote url.
    expect(() => new Audio({ url: "./no-such.wav" })).toThrow("Invalid remote URL format: ./no-such.wav. URL must start with http:// or https://");
    // http(s) stays remote (nothing is fetched).
    expect(new Audio({ url: "https://example.com/a.wav" }).local).toBe(false);
  });
});

describe("deepeval-shaped helpers", () => {
  const [parsed] = loadDeepevalJsonFile(join(SAMPLE, "calls", "order-status.json"));

  it("parse results are a union narrowed by ok", () => {
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) throw parsed.error;
    expect(parsed.testCase.turns).toHaveLength(6);
    const [bad] = loadDeepevalJsonFile(join(SAMPLE, "..", "README.md"));
    expect(bad.ok).toBe(false);
    if (bad.ok) throw new Error("unreachable");
    expect(bad.error.code).toBe("INVALID_JSON");
  });

  it("evaluate() results carry deepeval's metrics_data; assertTest throws listing the failing metrics", () => {
    if (!parsed.ok) throw parsed.error;
    const [result] = evaluate([parsed.testCase], createMetrics(["naturalness", "AudioIntegrityMetric"], { threshold: 0.5 }));
    expect(result.metrics_data.map((m) => [m.name, m.score, m.success])).toEqual(Object.entries(result.metrics).map(([name, m]) => [name, m.score, m.success]));
    expect(result.metrics_data[0]).toMatchObject({ name: "Voice Naturalness", threshold: 0.5, strict_mode: false, evaluation_model: null, evaluation_cost: null, error: null });
    // Naturalness 0.77 passes 0.5; integrity 0.37 fails 0.5.
    expect(assertTest(parsed.testCase, [new VoiceNaturalnessMetric({ threshold: 0.5 })]).success).toBe(true);
    let thrown: unknown;
    try {
      assertTest(parsed.testCase, createMetrics(["naturalness", "integrity"], { threshold: 0.5 }));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(MetricAssertionError);
    const failed = (thrown as MetricAssertionError).failed;
    expect(failed.map((m) => m.name)).toEqual(["Audio Integrity"]);
    expect((thrown as Error).message).toBe(`Metrics: Audio Integrity (score: ${failed[0].score}, threshold: 0.5, strict: false, error: null, reason: ${failed[0].reason}) failed.`);
  });
});

describe("analyzeFile", () => {
  it("takes a path or bytes and returns a result narrowed by status", () => {
    const byPath = analyzeFile(CLIP, { set: "all" });
    const byBytes = analyzeFile(new Uint8Array(readFileSync(CLIP)), { set: "all", path: "clip.wav" });
    expect(byPath.status).toBe("ok");
    if (byPath.status !== "ok" || byBytes.status !== "ok") throw new Error("not ok");
    expect({ ...byBytes, path: byPath.path }).toEqual(byPath);
    expect(byPath.sample_rate).toBe(8000);
    expect(typeof byPath.acoustics?.integrated_lufs).toBe("number");
    const missing = analyzeFile(join(SAMPLE, "nope.wav"));
    expect(missing.status).toBe("error");
    expect(missing.error?.code).toBe("IO_ERROR");
  });
});

describe("option validation", () => {
  it("refuses a threshold outside 0–1 with a clear message", () => {
    expect(() => new VoiceNaturalnessMetric({ threshold: 1.5 })).toThrow("threshold must be a number between 0 and 1, or null, got 1.5");
    expect(() => createMetrics([], { threshold: -0.1 })).toThrow(RangeError);
    expect(() => resolveScoreOptions({ threshold: 1.5 })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", field: "threshold" }));
    expect(() => createMetrics(["pitch"])).toThrow(/unknown metric "pitch"; choose from naturalness/);
    expect(createTestCase({ turns: [{ role: "user", content: "x" }] }).turns).toHaveLength(1);
  });
});
