// `voxmetrics simulate` as a user runs it (the built CLI in a child process): bundled goldens, espeak-ng caller voice, pocketsphinx STT of the agent's espeak-ng speech, the reference agent on loopback, then --score.
import { execFile } from "node:child_process";
import { readFileSync, mkdtempSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EspeakTts, PocketsphinxSpeechToText } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { startFakeOpenAI, TEST_KEY } from "../speech/openai-server.js";
import { ensureBuilt } from "../helpers/dist.js";

const run = promisify(execFile);
const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");
const GOLDENS = join(REPO_ROOT, "examples", "goldens", "support-calls.jsonl");
const HAS_ESPEAK = EspeakTts.isAvailable();
const HAS_SPHINX = await new PocketsphinxSpeechToText().checkInstallation().then(
  () => true,
  () => false,
);
if (!HAS_ESPEAK || !HAS_SPHINX) console.warn("espeak-ng or pocketsphinx (with its en-us model) is missing: the offline simulate run is skipped (apt-get install espeak-ng pocketsphinx pocketsphinx-en-us)");

let tmp: string;
let agent: ReferenceAgent;

beforeAll(async () => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), "vox-cli-sim-"));
  agent = await startReferenceAgent({ delayMs: 300, vadSilenceMs: 400, voice: HAS_ESPEAK ? "espeak" : "synthetic", replies: ["Your order ships tomorrow.", "I can help with that refund today."] });
}, 180_000);

afterAll(async () => {
  await agent.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("voxmetrics simulate", () => {
  it("--help lists the caller, TTS and STT choices with their defaults", async () => {
    const { stdout } = await run("node", [BIN, "simulate", "--help"]);
    const text = stdout.replace(/\s+/g, " ");
    for (const d of ['"scripted", "model"', 'default: "scripted"', '"espeak", "openai"', '"pocketsphinx", "openai", "connector"', 'default: "connector"', "default: 10", "default: 0", 'default: "rule"']) expect(text).toContain(d);
  });

  it("a bad golden file names the file and field and exits 1 without calling", async () => {
    const r = await run("node", [BIN, "simulate", join(REPO_ROOT, "package.json"), "--connector", "websocket", "--url", `${agent.url}/generic`, "--out", join(tmp, "bad")]).catch((e) => e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/package\.json.*scenario/);
  });

  it("--caller model --tts openai: the chat model speaks through the OpenAI-compatible voice, the key stays in the environment", async () => {
    const server = await startFakeOpenAI();
    try {
      server.chat = { content: JSON.stringify({ utterance: "Where is my parcel? Thanks, bye.", expected_outcome_reached: false, end_call: true }) };
      const goldens = join(tmp, "model.json");
      writeFileSync(goldens, JSON.stringify({ name: "model-call", scenario: "A late parcel.", persona: { characteristics: "busy", voice: "nova" } }));
      const out = join(tmp, "model-out");
      const r = await run("node", [BIN, "simulate", goldens, "--connector", "websocket", "--url", `${agent.url}/generic`, "--receive-transcript-key", "text", "--turn-complete-type", "turn_complete", "--turn-detection", "eager", "--trailing-silence-ms", "600", "--caller", "model", "--tts", "openai", "--out", out], {
        env: { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: TEST_KEY, VOXMETRICS_CHAT_MODEL: "test-chat" },
        timeout: 60_000,
      }).catch((e) => e);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({ name: "model-call", end_reason: "caller_sign_off", error: null });
      expect(r.stderr).toContain("model caller");
      expect(r.stderr).toContain("chat test-chat");
      const tc = JSON.parse(readFileSync(join(out, "model-call.json"), "utf8"));
      expect(tc.turns[0]).toMatchObject({ role: "user", content: "Where is my parcel? Thanks, bye." });
      expect(server.requests.filter((q) => q.path === "/v1/audio/speech").map((q) => q.json!.voice)).toEqual(["nova"]);
      expect(r.stderr).not.toContain(TEST_KEY);
      expect(readFileSync(join(out, "model-call.json"), "utf8")).not.toContain(TEST_KEY);
    } finally {
      await server.close();
    }
  }, 90_000);

  it("--stt pocketsphinx without pocketsphinx stops before calling, with the install hint", async () => {
    const r = await run("node", [BIN, "simulate", GOLDENS, "--connector", "websocket", "--url", `${agent.url}/generic`, "--stt", "pocketsphinx", "--tts", "openai", "--out", join(tmp, "nosphinx")], {
      env: { ...process.env, POCKETSPHINX_PATH: join(tmp, "no-such-pocketsphinx"), OPENAI_API_KEY: "sk-unused" },
    }).catch((e) => e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/apt-get install/);
    expect(existsSync(join(tmp, "nosphinx"))).toBe(false);
  });

  it.skipIf(!HAS_ESPEAK || !HAS_SPHINX)("simulates two bundled goldens offline (espeak-ng caller, pocketsphinx hearing the agent), writes the capture folder and scores it", async () => {
    const out = join(tmp, "out");
    const r = await run(
      "node",
      [BIN, "simulate", GOLDENS, "--connector", "websocket", "--url", `${agent.url}/generic`, "--receive-transcript-key", "text", "--turn-complete-type", "turn_complete", "--trailing-silence-ms", "600", "--turn-detection", "eager", "--stt", "pocketsphinx", "--max-turns", "2", "--concurrency", "2", "--out", out, "--score", "--workers", "0"],
      { timeout: 150_000 },
    ).catch((e) => e);
    const lines = r.stdout.trim().split("\n").map((l: string) => JSON.parse(l));
    expect(lines.map((l: { name: string }) => l.name)).toEqual(["order-status", "refund", "greeted-caller"]);
    expect(lines[0]).toMatchObject({ end_reason: "max_turns", turns: 4, error: null });
    expect(lines[1]).toMatchObject({ end_reason: "max_turns", turns: 4, error: null });
    expect(r.stderr).toContain("[order-status] connected (websocket, half-duplex, scripted caller)");
    expect(r.stderr).toMatch(/\d\/3 calls · refund: 4 turn\(s\)/);
    const tc = JSON.parse(readFileSync(join(out, "order-status.json"), "utf8"));
    expect(tc.turns[0]).toMatchObject({ role: "user", content: "Hi, I am calling about my order." });
    expect(tc.turns[1].content).toBe("Your order ships tomorrow.");
    expect(typeof tc.turns[1].metadata.stt_transcript).toBe("string");
    expect(tc.metadata.simulation).toMatchObject({ caller: "scripted", tts: "espeak-ng:en-us", stt: "pocketsphinx-en-us" });
    expect(existsSync(join(out, "recordings", "order-status.wav"))).toBe(true);
    const scores = readFileSync(join(out, "scores.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(scores.filter((s: { status: string }) => s.status === "ok").length).toBeGreaterThanOrEqual(2);
    // The agent's transcript against pocketsphinx's hearing of its espeak-ng audio, per turn and per call.
    const order = scores.find((s: { name: string }) => s.name === "order-status");
    expect(order.transcript_accuracy.by_kind.agent_said_vs_stt.reference_words).toBeGreaterThan(0);
    expect(order.transcript_accuracy.turns.every((t: { kind: string; role: string }) => t.kind === "agent_said_vs_stt" && t.role === "assistant")).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.transcript_accuracy.calls).toBeGreaterThanOrEqual(2);
    expect(summary.transcript_accuracy.wer).toBeGreaterThanOrEqual(0);
    expect(r.stderr).toMatch(/transcripts \(\d call\(s\), \d+ reference words\): WER \d\.\d{3}/);
  }, 180_000);
});
