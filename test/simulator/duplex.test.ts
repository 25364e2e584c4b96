// Duplex interruptions (§L6.2) against the reference agent on loopback: every frequency × overlap combination within its limits, interrupted flags and barge metadata, the frustrated yield on a grace miss, seeded determinism.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FLOOR_CONTROL_PRESETS,
  FRUSTRATED_UTTERANCE,
  INTERRUPTION_FREQUENCIES,
  INTERRUPTION_POLICIES,
  OVERLAP_PRESETS,
  ScriptedCallerPolicy,
  WebSocketConnector,
  parseGolden,
  runSimulations,
  type ConversationalGolden,
  type ConversationalTestCase,
} from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { CALLER_TTS } from "../connectors/live-helpers.js";

/** About 8 s of synthetic speech: long enough for a rare caller's 80 heard characters. */
const LONG_REPLY = "Thanks for calling. I can see your account here, and I will now read out the details of your last three orders, starting with the oldest one.";
const SHORT_REPLY = "Sure, noted.";

let dir: string;
const agents: ReferenceAgent[] = [];
async function agent(options: Parameters<typeof startReferenceAgent>[0] = {}): Promise<ReferenceAgent> {
  const a = await startReferenceAgent({ vadSilenceMs: 200, delayMs: 300, replies: [LONG_REPLY, SHORT_REPLY, LONG_REPLY], ...options });
  agents.push(a);
  return a;
}
const connector = (a: ReferenceAgent) => new WebSocketConnector({ url: `${a.url}/generic`, turnDetection: { preset: "eager", maxTurnTimeoutS: 15 }, receiveTranscriptKey: "text", turnCompleteType: "turn_complete", trailingSilenceMs: 300 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vox-sim-duplex-"));
});
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 200));
  for (const a of agents) expect(a.openConnections()).toBe(0);
  for (const a of agents) await a.close();
  rmSync(dir, { recursive: true, force: true });
});

function golden(name: string, frequency: string, overlap: string, lines: string[]): ConversationalGolden {
  return parseGolden({ name, scenario: "Order status", turns: lines.map((content) => ({ role: "user", content })), persona: { characteristics: "a caller", interruption_behavior: { frequency, overlap } } }, dir, `test:${name}`);
}

/** Barge user turns and the assistant turn each cut into (the last assistant turn that started before it). */
function barges(tc: ConversationalTestCase): Array<{ index: number; into: number }> {
  const out: Array<{ index: number; into: number }> = [];
  tc.turns.forEach((t, i) => {
    if (t.role !== "user" || t.metadata?.barge_in !== true) return;
    let into = -1;
    for (let j = 0; j < tc.turns.length; j++) if (tc.turns[j].role === "assistant" && tc.turns[j].audio!.start_time! < t.audio!.start_time!) into = j;
    out.push({ index: i, into });
  });
  return out;
}

/** What must be the same when a call is replayed with the same seed. */
function shape(tc: ConversationalTestCase) {
  return tc.turns.map((t) => ({ role: t.role, content: t.content, interrupted: t.interrupted ?? null, barge: t.metadata?.barge_in ?? null, frustrated: t.metadata?.frustrated ?? null }));
}

describe("duplex floor control against the reference agent", () => {
  it("every frequency × overlap combination stays within the policy's limits; cut turns are interrupted and their barge turns carry the metadata", async () => {
    const a = await agent();
    const goldens = INTERRUPTION_FREQUENCIES.flatMap((f) => OVERLAP_PRESETS.map((o) => golden(`${f}-${o}`, f, o, ["Where is my order?", "Please go on.", "Thanks."])));
    const { results } = await runSimulations(goldens, () => connector(a), { outDir: join(dir, "combos"), tts: CALLER_TTS, duplex: true, seed: 7, maxTurns: 3, makePolicy: (g) => new ScriptedCallerPolicy(g.script), concurrency: goldens.length });
    let total = 0;
    for (const r of results) {
      const [f, o] = r.name.split("-") as [keyof typeof INTERRUPTION_POLICIES, keyof typeof FLOOR_CONTROL_PRESETS];
      const policy = INTERRUPTION_POLICIES[f];
      expect(r.error, r.name).toBeNull();
      const tc = r.testCase!;
      expect(tc.metadata).toMatchObject({ mode: "duplex", simulation: { interruption_behavior: { frequency: f, overlap: o }, judge: "rule" } });
      const b = barges(tc);
      total += b.length;
      expect(b.length, r.name).toBeLessThanOrEqual(policy.maxBargesPerCall);
      const perUtterance = new Map<number, number>();
      for (const x of b) perUtterance.set(x.into, (perUtterance.get(x.into) ?? 0) + 1);
      for (const n of perUtterance.values()) expect(n, r.name).toBeLessThanOrEqual(policy.maxBargesPerUtterance);
      // A cut assistant turn is followed by the honoured barge that cut it, and only those are interrupted.
      const honoured = b.filter((x) => tc.turns[x.index].metadata!.barge_in_honoured === true);
      const interrupted = tc.turns.map((t, i) => (t.interrupted === true ? i : -1)).filter((i) => i >= 0);
      expect(interrupted, r.name).toEqual(honoured.map((x) => x.into));
      for (const i of interrupted) {
        expect(tc.turns[i].role).toBe("assistant");
        // What the caller heard is shorter than what the agent meant to say.
        expect(tc.turns[i].metadata!.intended_content).toBe(LONG_REPLY);
        expect(LONG_REPLY.startsWith(tc.turns[i].content)).toBe(true);
        expect(tc.turns[i].content.length).toBeLessThan(LONG_REPLY.length);
      }
      for (const x of b) expect(tc.turns[x.index].metadata!.judge_reason).toMatch(/^rule judge/);
      const states = (tc.metadata!.simulation as { floor_events: Array<{ state: string }> }).floor_events.map((e) => e.state);
      if (b.length > 0) expect(states).toEqual(expect.arrayContaining(["listening", "barging", "overlap"]));
    }
    // The frequent callers (20 heard characters, p = 0.75) barged; the rule judge is seeded, so this holds for seed 7.
    expect(total).toBeGreaterThan(0);
    expect(results.filter((r) => r.name.startsWith("frequent")).every((r) => barges(r.testCase!).length > 0)).toBe(true);
  }, 120_000);

  it("a grace miss (the agent talks on) produces the frustrated yield and the barge is not honoured", async () => {
    const a = await agent({ bargeInMs: 0 });
    const g = golden("stubborn", "frequent", "adaptive", ["Where is my order?", "No wait, I really need to tell you something about my address before you go on any further."]);
    const { results } = await runSimulations([g], () => connector(a), { outDir: join(dir, "grace"), tts: CALLER_TTS, duplex: true, seed: 3, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const tc = results[0].testCase!;
    const barge = tc.turns.find((t) => t.metadata?.barge_in === true)!;
    expect(barge).toBeDefined();
    expect(barge.metadata).toMatchObject({ barge_in: true, barge_in_honoured: false, frustrated: true, grace_missed_ms: FLOOR_CONTROL_PRESETS.adaptive.interruptGraceMs, uplink_stopped: true });
    const sorry = tc.turns.find((t) => t.metadata?.frustrated_yield === true)!;
    expect(sorry.content).toBe(FRUSTRATED_UTTERANCE);
    expect(sorry.audio!.start_time!).toBeGreaterThan(barge.audio!.start_time!);
    // The barge lasted the grace period, no more (the uplink was cut then).
    expect(barge.audio!.duration!).toBeGreaterThan(FLOOR_CONTROL_PRESETS.adaptive.interruptGraceMs / 1000 - 0.1);
    expect(barge.audio!.duration!).toBeLessThan(FLOOR_CONTROL_PRESETS.adaptive.interruptGraceMs / 1000 + 0.3);
    const states = (tc.metadata!.simulation as { floor_events: Array<{ state: string }> }).floor_events.map((e) => e.state);
    expect(states).toEqual(expect.arrayContaining(["barging", "overlap", "grace_wait", "frustrated_yield", "awkward_silence", "restart_barge"]));
    expect(tc.turns.some((t) => t.interrupted === true)).toBe(false);
  }, 60_000);

  it("speaks_first = false in duplex: the agent's greeting is the first turn and the caller answers it", async () => {
    const a = await agent({ greeting: "Hello, thanks for calling." });
    const g = parseGolden({ name: "greeted", scenario: "s", turns: [{ role: "user", content: "Where is my order?" }], persona: { characteristics: "patient", speaks_first: false, interruption_behavior: { frequency: "rare", overlap: "yield" } } }, dir, "test:greeted");
    const { results } = await runSimulations([g], () => connector(a), { outDir: join(dir, "greeted"), tts: CALLER_TTS, duplex: true, maxTurns: 1, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const tc = results[0].testCase!;
    expect(results[0].record!.endReason).toBe("max_turns");
    expect(tc.turns.map((t) => `${t.role}:${t.content}`)).toEqual(["assistant:Hello, thanks for calling.", "user:Where is my order?", `assistant:${LONG_REPLY}`]);
    expect(tc.turns[0].audio!.start_time).toBe(0);
  }, 60_000);

  it("the same golden with the same seed gives the same call twice", async () => {
    const a = await agent();
    const g = golden("replay", "frequent", "yield", ["Where is my order?", "Please go on.", "Thanks."]);
    const runs = [];
    for (const k of [1, 2]) {
      const { results } = await runSimulations([g], () => connector(a), { outDir: join(dir, `replay-${k}`), tts: CALLER_TTS, duplex: true, seed: 11, maxTurns: 3, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
      expect(results[0].error).toBeNull();
      runs.push(results[0].testCase!);
    }
    expect(shape(runs[1])).toEqual(shape(runs[0]));
    const states = (tc: ConversationalTestCase) => (tc.metadata!.simulation as { floor_events: Array<{ state: string }> }).floor_events.map((e) => e.state);
    expect(states(runs[1])).toEqual(states(runs[0]));
  }, 90_000);
});
