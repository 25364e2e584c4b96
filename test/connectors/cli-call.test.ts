// `voxmetrics call` as a user runs it (the built CLI in a child process) against the reference agent, then `score` on the folder; espeak-ng TTS.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EspeakTts, decodeAudio } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";
import { bareId } from "../helpers/ids.js";

const run = promisify(execFile);
const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");
const HAS_ESPEAK = EspeakTts.isAvailable();
let tmp: string;
let agent: ReferenceAgent;

beforeAll(async () => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), "vox-cli-call-"));
  agent = await startReferenceAgent({ delayMs: 400, vadSilenceMs: 500, replies: ["Your order ships tomorrow."] });
}, 180_000);

afterAll(async () => {
  await agent.close();
  expect(agent.openConnections()).toBe(0);
  rmSync(tmp, { recursive: true, force: true });
});

describe("voxmetrics call", () => {
  it("--help shows every default", async () => {
    const { stdout } = await run("node", [BIN, "call", "--help"]);
    const text = stdout.replace(/\s+/g, " ");
    for (const d of ['default: "balanced"', "default: 1)", "default: 24000", "default: 1500", "default: 15)", 'default: "audio"', 'default: "server-vad"', 'default: "beta"', 'default: "en-us"', "default: 165", 'default: "linear"', "default: 2000"]) {
      expect(text).toContain(d);
    }
  });

  it.skipIf(!HAS_ESPEAK)("calls the reference agent (realtime) with text turns spoken by espeak-ng, then scores the folder", async () => {
    const scriptPath = join(tmp, "script.json");
    writeFileSync(scriptPath, JSON.stringify({ name: "order-status", turns: [{ text: "Where is my order?" }, { text: "Thank you.", pause_before: 0.3 }] }));
    const out = join(tmp, "out");
    const r = await run("node", [BIN, "call", "--connector", "realtime", "--url", `${agent.url}/realtime`, "--script", scriptPath, "--out", out, "--turn-detection", "eager", "--score", "--workers", "0"], { timeout: 60_000 });
    const line = JSON.parse(r.stdout.trim().split("\n")[0]);
    expect(line).toMatchObject({ name: "order-status", turns: 4, end_reason: null, error: null });
    expect(r.stderr).toContain("[order-status] connected");
    const scores = readFileSync(join(out, "scores.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(scores).toHaveLength(1);
    expect(scores[0].metrics["Turn-Taking Naturalness"].skipped).toBe(false);
    expect(scores[0].metrics["Agent Responsiveness"].score).toBe(1);
    // `score` reads the folder directly: one record per call.
    const again = await run("node", [BIN, "score", out, "--workers", "0"], { timeout: 60_000 });
    const records = again.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(records.map((x) => bareId(x.id))).toEqual(["order-status.json#0"]);
    expect(records[0].metrics["Turn-Taking Naturalness"].score).toBe(scores[0].metrics["Turn-Taking Naturalness"].score);
  });

  it("calls a module exporting an agent function (callback connector), with WAV turns; a bad script line is an error naming file, line and field, the other calls run", async () => {
    const clip = join(tmp, "clip.wav");
    writeFileSync(clip, readFileSync(join(REPO_ROOT, "fixtures", "sample-archive", "deepeval-runs", "simulation-2026-01-15_09-30-00", "deepeval-turn-1-user.wav")));
    const mod = join(tmp, "agent.mjs");
    writeFileSync(mod, `export default async function agent(audio) { await new Promise((r) => setTimeout(r, 200)); return audio; }\n`);
    const scripts = join(tmp, "scripts.jsonl");
    writeFileSync(scripts, [JSON.stringify({ name: "echo", turns: [{ audio: "clip.wav" }] }), JSON.stringify({ name: "bad", turns: [{ audio: "clip.wav", pause_before: -1 }] })].join("\n"));
    const out = join(tmp, "out-module");
    const r = await run("node", [BIN, "call", "--connector", mod, "--script", scripts, "--out", out], { timeout: 60_000 }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect((r as { code?: number }).code).toBe(1);
    expect(r.stderr).toContain("scripts.jsonl line 2: turns[0].pause_before: must be a number of seconds in [0, 3600], got -1");
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ name: "echo", turns: 2, error: null });
    const tc = JSON.parse(readFileSync(join(out, "echo.json"), "utf8"));
    expect(tc.metadata.protocol).toBe("callback");
    expect(tc.turns[1].latency_ms).toBeGreaterThanOrEqual(195);
  });
});

describe("espeak-ng TTS", () => {
  it.skipIf(!HAS_ESPEAK)("speaks text as a canonical WAV at the asked rate, voice and speaking rate selectable", async () => {
    const slow = await new EspeakTts({ voice: "en-us", wordsPerMinute: 120, sampleRate: 24000 }).synthesize("Where is my order?");
    const fast = await new EspeakTts({ voice: "en-gb", wordsPerMinute: 250, sampleRate: 24000 }).synthesize("Where is my order?");
    const a = decodeAudio(slow.audio.getBytes());
    const b = decodeAudio(fast.audio.getBytes());
    expect(a.sampleRate).toBe(24000);
    expect(a.frames / a.sampleRate).toBeGreaterThan(b.frames / b.sampleRate);
    expect(slow.costUsd).toBe(0);
  });

  it("says how to install espeak-ng when it is missing", async () => {
    await expect(new EspeakTts({ executable: "/nonexistent/espeak-ng" }).synthesize("hello")).rejects.toThrow(/apt-get install -y --no-install-recommends espeak-ng/);
  });
});
