// Goldens and personas: loading with deepeval's names and aliases, and each §L6.1 behaviour (speaks_first, muted, hold_timeout, background_noise) against the reference agent on loopback.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BackgroundNoise,
  RealtimeConnector,
  ScriptedCallerPolicy,
  WebSocketConnector,
  decodeAudio,
  discoverCalls,
  loadCall,
  mixBackground,
  parseGolden,
  readGoldenFile,
  runSimulations,
  resolveScoreOptions,
  scoreCall,
  scoreTestCase,
  writeWavPcm16,
  type ConversationalGolden,
} from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { CALLER_TTS, REPLY_TEXT } from "../connectors/live-helpers.js";

let dir: string;
const agents: ReferenceAgent[] = [];
async function agent(options: Parameters<typeof startReferenceAgent>[0] = {}): Promise<ReferenceAgent> {
  const a = await startReferenceAgent({ vadSilenceMs: 200, delayMs: 300, replies: [REPLY_TEXT], ...options });
  agents.push(a);
  return a;
}
const connectorFor = (a: ReferenceAgent, maxTurnTimeoutS = 5) => () =>
  new WebSocketConnector({ url: `${a.url}/generic`, turnDetection: { preset: "eager", maxTurnTimeoutS }, receiveTranscriptKey: "text", turnCompleteType: "turn_complete", trailingSilenceMs: 300 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vox-sim-personas-"));
});
afterAll(async () => {
  // Every call hung up: no connection is left open on the agents' side.
  await new Promise((r) => setTimeout(r, 200));
  for (const a of agents) expect(a.openConnections()).toBe(0);
  for (const a of agents) await a.close();
  for (const a of agents) expect(a.openConnections()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

const golden = (value: Record<string, unknown>): ConversationalGolden => parseGolden({ scenario: "Order status", ...value }, dir, "test");

function rmsDb(pcm: Int16Array): number {
  let s = 0;
  for (const v of pcm) s += v * v;
  return 10 * Math.log10(s / pcm.length);
}

describe("goldens", () => {
  it("load from JSON and JSONL with deepeval's names and aliases, and a bad record names its file and field while the others load", () => {
    const jsonl = join(dir, "goldens.jsonl");
    writeFileSync(
      jsonl,
      [
        JSON.stringify({ scenario: "Refund", expectedOutcome: "refund issued", name: "a", turns: [{ role: "user", content: "I want a refund." }, { role: "assistant", content: "ok" }], persona: { characteristics: "calm", speaksFirst: false, holdTimeout: 12, multilingualStt: true, interruptionBehavior: { frequency: "rare", overlap: "insist" }, backgroundNoise: { audio: "cafe.wav" } } }),
        JSON.stringify({ scenario: "Order", expected_outcome: "status told", userDescription: "an impatient caller", additionalMetadata: { k: 1 } }),
        "{not json",
        JSON.stringify({ scenario: "Bad", persona: { characteristics: "x", hold_timeout: 0 } }),
        JSON.stringify({ scenario: "Bad2", persona: { characteristics: "x", interruption_behavior: { frequency: "sometimes" } } }),
      ].join("\n"),
    );
    const r = readGoldenFile(jsonl);
    expect(r.goldens).toHaveLength(2);
    const [a, b] = r.goldens;
    expect(a).toMatchObject({ scenario: "Refund", expectedOutcome: "refund issued", name: "a", script: ["I want a refund."] });
    expect(a.persona).toMatchObject({ characteristics: "calm", speaksFirst: false, holdTimeout: 12, multilingualStt: true, interruptionBehavior: { frequency: "rare", overlap: "insist" }, backgroundNoise: { audio: join(dir, "cafe.wav"), volume: 0.3 }, muted: false, voice: null });
    expect(b.persona).toMatchObject({ characteristics: "an impatient caller", speaksFirst: true });
    expect(b.metadata).toEqual({ k: 1 });
    expect(r.errors.map((e) => e.message)).toEqual([
      expect.stringContaining(`${jsonl} line 3`),
      expect.stringMatching(/line 4.*persona\.hold_timeout.*> 0/),
      expect.stringMatching(/line 5.*persona\.interruption_behavior\.frequency.*rare, normal, frequent/),
    ]);
    expect(() => golden({ user_description: "a", persona: { characteristics: "b" } })).toThrow(/user_description/);
    expect(() => parseGolden({ name: "x" }, dir, "g.json")).toThrow(/g\.json.*scenario/);
  });
});

describe("background noise", () => {
  it("mixes speech + trunc(bed × volume), clamped, and the bed at 0.3 sits 20·log10(0.3) dB under itself within 0.5 dB after resampling", () => {
    const speech = new Int16Array([0, 100, -100, 32000, -32000, 5]);
    const bed = new Int16Array([1001, -1001, 3, 30000]);
    expect(Array.from(mixBackground(speech, bed, 0.5))).toEqual([500, 100 - 500, -100 + 1, 32767, -32000 + 500, 5 - 500]);
    // A band-limited bed at 16 kHz, resampled to 24 kHz.
    const n = 16000 * 2;
    const bed16 = new Int16Array(n);
    for (let i = 0; i < n; i++) bed16[i] = Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 3000 * Math.sin((2 * Math.PI * 1330 * i) / 16000 + 1));
    const path = join(dir, "bed.wav");
    writeFileSync(path, writeWavPcm16(bed16, 16000));
    const warnings: string[] = [];
    const noise = BackgroundNoise.load({ audio: path, volume: 0.3 }, (m) => warnings.push(m))!;
    expect(warnings).toEqual([]);
    const mixed = noise.mix(new Int16Array(24000 * 3), 24000);
    expect(Math.abs(rmsDb(mixed) - rmsDb(bed16) - 20 * Math.log10(0.3))).toBeLessThan(0.5);
    expect(BackgroundNoise.load({ audio: join(dir, "missing.wav"), volume: 0.3 }, (m) => warnings.push(m))).toBeNull();
    expect(warnings[0]).toMatch(/missing\.wav cannot be read.*without it/);
  });
});

describe("personas against the reference agent (half-duplex)", () => {
  it("scripted caller says the golden's lines then signs off; speaks_first=false records the greeting first; the capture scores with no conversion", async () => {
    const a = await agent({ greeting: "Hello, thanks for calling." });
    const goldens = [
      golden({ name: "scripted", turns: [{ role: "user", content: "Where is my order?" }, { role: "user", content: "Can you check again?" }], persona: { characteristics: "calm" } }),
      golden({ name: "greeted", turns: [{ role: "user", content: "Where is my order?" }], persona: { characteristics: "calm", speaks_first: false } }),
    ];
    // The generic agent greets on connect: with speaks_first true the caller talks over the greeting, so use a second agent without one.
    const quiet = await agent();
    const out = join(dir, "half");
    const { results } = await runSimulations(goldens, (g) => (g.name === "greeted" ? connectorFor(a)() : connectorFor(quiet)()), {
      outDir: out,
      tts: CALLER_TTS,
      makePolicy: (g) => new ScriptedCallerPolicy(g.script),
      concurrency: 2,
    });
    const [s, g] = results;
    expect(s.error).toBeNull();
    expect(s.record!.endReason).toBe("caller_sign_off");
    expect(s.testCase!.turns.map((t) => `${t.role}:${t.content}`)).toEqual([
      "user:Where is my order?",
      `assistant:${REPLY_TEXT}`,
      "user:Can you check again?",
      `assistant:${REPLY_TEXT}`,
      "user:That's everything, thank you. Goodbye.",
      `assistant:${REPLY_TEXT}`,
    ]);
    // Half-duplex never sets interrupted.
    for (const r of results) for (const t of r.testCase!.turns) expect(t.interrupted ?? null).toBeNull();
    expect(s.testCase!).toMatchObject({ scenario: "Order status", user_description: "calm" });
    expect(s.testCase!.metadata).toMatchObject({ end_reason: "caller_sign_off", simulation: { caller: "scripted", caller_turns: 3 } });
    expect(g.testCase!.turns.map((t) => `${t.role}:${t.content}`).slice(0, 2)).toEqual(["assistant:Hello, thanks for calling.", "user:Where is my order?"]);
    expect(g.testCase!.turns[0].audio!.start_time).toBe(0);
    // Read back through discovery and scored: no conversion step.
    const refs = discoverCalls([out]).calls;
    expect(refs).toHaveLength(2);
    for (const ref of refs) {
      const call = loadCall(ref);
      const scored = scoreTestCase(call.testCase);
      expect(scored.metrics["Agent Responsiveness"].score).toBe(1);
    }
  });

  it("the agent's transcription of the caller lands in the user turn (agent_transcript) and score reports how well the agent heard", async () => {
    const a = await agent({ callerTranscripts: ["where is my order", "can you check a gain"] });
    const g = golden({ name: "heard", turns: [{ role: "user", content: "Where is my order?" }, { role: "user", content: "Can you check again?" }], persona: { characteristics: "calm" } });
    const out = join(dir, "heard");
    const { results } = await runSimulations([g], () => new RealtimeConnector({ url: `${a.url}/realtime`, turnDetection: { preset: "eager", maxTurnTimeoutS: 5 } }), { outDir: out, tts: CALLER_TTS, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const tc = results[0].testCase!;
    const users = tc.turns.filter((t) => t.role === "user");
    expect(users.map((t) => t.metadata!.agent_transcript)).toEqual(["where is my order", "can you check a gain"]);
    const ref = discoverCalls([out]).calls[0];
    const record = scoreCall({ ref, ingest: {}, score: resolveScoreOptions() });
    const ta = record.transcript_accuracy!;
    expect(ta.by_kind.agent_heard_caller).toMatchObject({ substitutions: 1, insertions: 1, deletions: 0, reference_words: 8 });
    expect(ta.turns.map((t) => t.wer)).toEqual([0, 0.5]);
  });

  it("muted: every caller turn is empty text with 1.0 s of digital silence; hold_timeout hangs up once consecutive silent exchanges reach it", async () => {
    const a = await agent();
    const g = golden({ name: "muted", turns: [{ role: "user", content: "Hello?" }, { role: "user", content: "Anyone?" }, { role: "user", content: "Hi?" }], persona: { characteristics: "silent", muted: true, hold_timeout: 3 } });
    const { results } = await runSimulations([g], connectorFor(a, 1), { outDir: join(dir, "muted"), tts: CALLER_TTS, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const r = results[0];
    expect(r.record!.endReason).toBe("hold_timeout");
    const turns = r.testCase!.turns;
    // Each exchange: 1.0 s clip + 0.3 s pad + 1 s of waiting, so the second reaches 3 s.
    expect(turns.map((t) => t.role)).toEqual(["user", "user"]);
    for (const t of turns) {
      expect(t.content).toBe("");
      const d = decodeAudio(t.audio!.getBytes());
      expect(d.samples.length).toBe(d.sampleRate * 1.0);
      expect(d.samples.every((v) => v === 0)).toBe(true);
    }
    expect(r.testCase!.metadata!.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^hold_timeout: [3-9]\.\d\d s/)]));
  });

  it("background_noise is looped under a muted caller's silence at the persona's volume (measured within 0.5 dB)", async () => {
    const a = await agent();
    const n = 16000;
    const bed = new Int16Array(n);
    for (let i = 0; i < n; i++) bed[i] = Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 16000) + 2000 * Math.sin((2 * Math.PI * 1800 * i) / 16000));
    writeFileSync(join(dir, "noise.wav"), writeWavPcm16(bed, 16000));
    const g = golden({ name: "noisy", turns: [{ role: "user", content: "x" }], persona: { characteristics: "in a cafe", muted: true, hold_timeout: 1, background_noise: { audio: "noise.wav", volume: 0.25 } } });
    const { results } = await runSimulations([g], connectorFor(a, 1), { outDir: join(dir, "noisy"), tts: CALLER_TTS, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const t = results[0].testCase!.turns[0];
    const clip = decodeAudio(t.audio!.getBytes()).samples;
    const expected = BackgroundNoise.load({ audio: join(dir, "noise.wav"), volume: 0.25 }, () => {})!.mix(new Int16Array(24000), 24000);
    expect(Array.from(clip)).toEqual(Array.from(expected));
    expect(Math.abs(rmsDb(clip) - rmsDb(bed) - 20 * Math.log10(0.25))).toBeLessThan(0.5);
    expect(results[0].testCase!.metadata).toMatchObject({ simulation: { persona: { background_noise: { volume: 0.25, applied: true } } } });
  });
});
