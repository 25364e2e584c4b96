// The voxmetrics profile's API: options (defaults, overrides, validation), evidence bands, the profile through measure(), evaluate(), scoreTestCase and `score --profile`, silent agents, turn-taking evidence.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWavPcm16 } from "../../src/audio/wav-writer.js";
import { CallAnalysis } from "../../src/analysis/call.js";
import {
  createMetrics,
  DEFAULT_VOXMETRICS_PROFILE_OPTIONS,
  evaluate,
  resolveVoxmetricsProfileOptions,
  VoxmetricsAgentResponsivenessMetric,
  VoxmetricsAudioIntegrityMetric,
  VoxmetricsTurnTakingNaturalnessMetric,
  VoxmetricsVoiceNaturalnessMetric,
} from "../../src/metrics/index.js";
import { rate } from "../../src/metrics/voxmetrics/options.js";
import { latencyCurve } from "../../src/metrics/voxmetrics/turn-taking-naturalness.js";
import { Audio } from "../../src/model/audio.js";
import { createTestCase, type ConversationalTestCase, type Turn } from "../../src/model/test-case.js";
import { scoreTestCase } from "../../src/scoring/index.js";
import { buildTimeline, findTransitions, splitReplies } from "../../src/timeline/index.js";
import { ensureBuilt } from "../helpers/dist.js";
import { seededRandom } from "../helpers/random.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { runCli } from "../cli/score-program.js";

const RATE = 16000;

/** Speech-like audio: syllables of harmonics on a wandering pitch with decaying edges, short pauses. */
function speechLike(seconds: number, seed: number, f0 = 120): Int16Array {
  const random = seededRandom(seed);
  const n = Math.round(seconds * RATE);
  const out = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const syllable = Math.max(0, Math.sin(Math.PI * 4 * t)) ** 2;
    phase += (2 * Math.PI * f0 * (1 + 0.05 * Math.sin(2 * Math.PI * 1.3 * t))) / RATE;
    let v = 0;
    for (let h = 1; h <= 6; h++) v += Math.sin(h * phase) / h;
    out[i] = Math.round(6000 * syllable * v + 30 * (random() - 0.5));
  }
  return out;
}

function clip(pcm: Int16Array, start: number): Audio {
  return Audio.fromBytes(writeWavPcm16(pcm, RATE), "audio/wav", { start_time: start });
}

/** Three exchanges; `agent(i)` gives the agent's PCM of exchange i. */
function call(agent: (i: number) => Int16Array, replyGapS = 1): ConversationalTestCase {
  const turns: Turn[] = [];
  let t = 0;
  for (let i = 0; i < 3; i++) {
    const user = speechLike(1, 100 + i, 200);
    turns.push({ role: "user", content: "Can you help me?", audio: clip(user, t) } as Turn);
    t += 1 + replyGapS;
    const a = agent(i);
    turns.push({ role: "assistant", content: "Sure, here is the answer.", audio: clip(a, t) } as Turn);
    t += a.length / RATE + 0.8;
  }
  return createTestCase({ name: "synthetic", turns } as ConversationalTestCase);
}

const clean = call((i) => speechLike(2, i + 1));

describe("profile options", () => {
  it("defaults are frozen; overrides merge field by field and are validated with the field named", () => {
    expect(Object.isFrozen(DEFAULT_VOXMETRICS_PROFILE_OPTIONS)).toBe(true);
    const o = resolveVoxmetricsProfileOptions({ snrDb: { good: 20 }, measure: { repeatMaxS: 0.8 } });
    expect(o.snrDb).toEqual({ good: 20, bad: 0 });
    expect(o.measure.repeatMaxS).toBe(0.8);
    expect(o.measure.repeatMinS).toBe(0.2);
    expect(() => resolveVoxmetricsProfileOptions({ snrDb: { good: 0, bad: 0 } })).toThrow(/profile option snrDb needs good ≠ bad/);
    expect(() => resolveVoxmetricsProfileOptions({ measure: { repeatMinS: 9 } })).toThrow(/repeatMinS must be a number in \[0.02, 5\]/);
    expect(() => resolveVoxmetricsProfileOptions({ nope: 1 } as never)).toThrow(/profile option nope is unknown/);
  });

  it("rates a value into a band and a sub-score on either kind of ramp", () => {
    expect(rate(25, { good: 12, bad: 0 }, "dB")).toEqual({ value: 25, unit: "dB", band: "good", score: 1 });
    expect(rate(6, { good: 12, bad: 0 }, "dB")).toMatchObject({ band: "degraded", score: 0.5 });
    expect(rate(0.5, { good: 0.001, bad: 0.05 }, "")).toMatchObject({ band: "bad", score: 0 });
    expect(rate(3400, { good: 7000, bad: 4000, floor: 0.75 }, "Hz")).toMatchObject({ band: "bad", score: 0.75 });
    expect(rate(null, { good: 1, bad: 2 }, "")).toMatchObject({ band: "n/a", score: 1 });
  });
});

describe("the voxmetrics profile on a synthetic call", () => {
  it("scores a clean call high with evidence, and names the profile in every breakdown", () => {
    const [r] = evaluate([clean], createMetrics([], {}, "voxmetrics"));
    expect(Object.keys(r.metrics)).toHaveLength(7);
    for (const m of Object.values(r.metrics)) {
      expect(m.score).toBeGreaterThanOrEqual(0.85);
      expect(m.score_breakdown!.profile).toBe("voxmetrics");
    }
    const turn = (r.metrics["Speech Intelligibility"].score_breakdown!.turns as Array<{ evidence: Record<string, { band: string }> }>)[0];
    expect(Object.keys(turn.evidence)).toEqual(["speech_snr_db", "loudness_lufs", "band_edge_hz", "lost_fraction", "clipped_fraction"]);
  });

  it("scores an agent turn replaced by silence as a failure, never skips it", () => {
    const muted = call((i) => (i === 1 ? new Int16Array(2 * RATE) : speechLike(2, i + 1)));
    const [r] = evaluate([muted], createMetrics([], {}, "voxmetrics"));
    expect(r.metrics["Agent Responsiveness"].score).toBe(0);
    expect(r.metrics["Voice Reliability"].score).toBe(0);
    expect(r.metrics["Speech Intelligibility"].score).toBeLessThanOrEqual(0.67);
    expect(r.metrics["Audio Integrity"].score).toBeLessThanOrEqual(0.67);
    expect(r.metrics["Voice Consistency"].score).toBeLessThanOrEqual(0.67);
    expect(r.metrics["Voice Naturalness"].score).toBeGreaterThanOrEqual(0.85);
    const silent = call(() => new Int16Array(2 * RATE));
    const [s] = evaluate([silent], createMetrics([], {}, "voxmetrics"));
    expect(s.metrics["Voice Consistency"].score).toBe(0);
    expect(s.metrics["Speech Intelligibility"].score).toBe(0);
    expect(s.skipped).toEqual(["Voice Naturalness"]);
  });

  it("finds a 400 ms loop off any grid and makes the agent a looping agent at two", () => {
    const looped = (pcm: Int16Array, count: number) => {
      let x = pcm;
      for (let k = 0; k < count; k++) {
        const at = 3001 + k * 9000, len = 6400;
        const out = new Int16Array(x.length + len);
        out.set(x.subarray(0, at + len));
        out.set(x.subarray(at, at + len), at + len);
        out.set(x.subarray(at + len), at + 2 * len);
        x = out;
      }
      return x;
    };
    const [one] = evaluate([call((i) => looped(speechLike(2, i + 1), i === 0 ? 1 : 0))], createMetrics(["naturalness", "reliability"], {}, "voxmetrics"));
    expect(one.metrics["Voice Naturalness"].score).toBeLessThan(0.9);
    expect(one.metrics["Voice Reliability"].score).toBeGreaterThan(0);
    const [two] = evaluate([call((i) => looped(speechLike(2, i + 1), i === 0 ? 2 : 0))], createMetrics(["reliability"], {}, "voxmetrics"));
    expect(two.metrics["Voice Reliability"].score).toBe(0);
  });

  it("measure() builds its own analysis; a shared analysis without the profile's measurements is refused by name", () => {
    const m = new VoxmetricsAudioIntegrityMetric();
    expect(m.measure(clean)).toBeGreaterThanOrEqual(0.85);
    expect(() => new VoxmetricsVoiceNaturalnessMetric().measure(clean, new CallAnalysis(clean))).toThrow(/needs the profile's measurements/);
    const r = new VoxmetricsAgentResponsivenessMetric({ profile: { repromptPenalty: 0.5 } });
    expect(r.profileOptions.repromptPenalty).toBe(0.5);
  });

  it("scoreTestCase names the profile; deepeval stays the default", () => {
    expect(scoreTestCase(clean).profile).toBe("deepeval");
    const vox = scoreTestCase(clean, { profile: "voxmetrics", metrics: ["integrity"] });
    expect(vox.profile).toBe("voxmetrics");
    expect(vox.metrics["Audio Integrity"].score_breakdown!.profile).toBe("voxmetrics");
    expect(() => scoreTestCase(clean, { profile: "nope" as never })).toThrow(/must be one of deepeval, voxmetrics/);
  });
});

describe("turn-taking evidence", () => {
  it("follows EVA's latency curve", () => {
    const o = DEFAULT_VOXMETRICS_PROFILE_OPTIONS;
    expect([-600, 0, 500, 1000, 2000, 2750, 3500].map((ms) => latencyCurve(ms, o))).toEqual([0, 0.5, 1, 1, 1, 0.5, 0]);
  });

  it("keeps caller→agent replies apart from agent→caller hand-overs", () => {
    const late = call((i) => speechLike(2, i + 1), 3);
    const timeline = buildTimeline(late.turns, (i) => (late.turns[i].role === "user" ? 1 : 2));
    const { agent, caller } = splitReplies(timeline, findTransitions(timeline));
    expect(agent.map((r) => Math.round(r.latency_ms))).toEqual([3000, 3000, 3000]);
    expect(caller.map((r) => Math.round(r.gap_ms))).toEqual([800, 800]);
    const [r] = evaluate([late], [new VoxmetricsTurnTakingNaturalnessMetric()]);
    expect(r.metrics["Turn-Taking Naturalness"].score).toBeCloseTo(1 / 3, 3);
    expect(r.metrics["Turn-Taking Naturalness"].score_breakdown!.eva).toMatchObject({ p50_latency_ms: 3000, late_rate: 1, early_rate: 0 });
  });
});

describe("voxmetrics score --profile voxmetrics", () => {
  const tmp = mkdtempSync(join(tmpdir(), "vx-profile-"));
  beforeAll(ensureBuilt, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("writes records that name the profile, with the profile's breakdowns", async () => {
    const out = join(tmp, "results.jsonl");
    const code = await runCli(["score", join(REPO_ROOT, "fixtures", "sample-archive", "calls"), "--profile", "voxmetrics", "--out", out, "--workers", "0"]);
    expect(code).toBe(0);
    const records = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records.length).toBeGreaterThan(0);
    for (const r of records.filter((x) => x.status === "ok")) {
      expect(r.profile).toBe("voxmetrics");
      for (const m of Object.values(r.metrics) as Array<{ score_breakdown: { profile?: string } | null }>) expect(m.score_breakdown?.profile).toBe("voxmetrics");
    }
  }, 60_000);
});
