// Capture behaviour against the reference agent: barge-in, misbehaving agents (end_reason, critical events, timeouts, frame errors), the output folder scored with no conversion.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AgentResponsivenessMetric,
  CallbackConnector,
  ElevenLabsConnector,
  RealtimeConnector,
  decodeAudio,
  elevenLabsUrl,
  type SpeechToText,
  TurnTakingNaturalnessMetric,
  WebSocketConnector,
  discoverCalls,
  expandHeaders,
  loadCall,
  loadDeepevalJsonFile,
  monotonicMs,
  parseScript,
  runScriptedCalls,
  scoreTestCase,
  type ConversationalTestCase,
} from "../../src/index.js";
import { startReferenceAgent, type Misbehaviour, type ReferenceAgent } from "../../examples/reference-agent.js";
import { CALLER_TTS, REPLY_TEXT, makeConnector, script } from "./live-helpers.js";
import { bareId } from "../helpers/ids.js";

let out: string;
const agents: ReferenceAgent[] = [];
async function agent(options: Parameters<typeof startReferenceAgent>[0]): Promise<ReferenceAgent> {
  const a = await startReferenceAgent({ vadSilenceMs: 200, replies: [REPLY_TEXT], ...options });
  agents.push(a);
  return a;
}

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "vox-capture-"));
});

afterAll(async () => {
  for (const a of agents) await a.close();
  for (const a of agents) expect(a.openConnections()).toBe(0);
  rmSync(out, { recursive: true, force: true });
});

function responsiveness(tc: ConversationalTestCase) {
  const m = new AgentResponsivenessMetric();
  m.measure(tc);
  return m;
}

describe("barge-in", () => {
  it("marks the cut assistant turn interrupted and Turn-Taking Naturalness reports a user_barge_in", async () => {
    const a = await agent({ delayMs: 300, replies: ["Thank you for calling, your order shipped yesterday and should arrive on Friday.", REPLY_TEXT] });
    await Promise.all((["realtime", "websocket"] as const).map(async (kind) => {
      const { results } = await runScriptedCalls(
        [script(`barge-${kind}`, [{ text: "Where is my order?" }, { text: "Sorry, one more thing.", barge_in_after: 1.2 }])],
        () => makeConnector(kind, a),
        { outDir: join(out, `barge-${kind}`), tts: CALLER_TTS, duplex: true },
      );
      const tc = results[0].testCase!;
      expect(tc.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
      const [, cut, barge] = tc.turns;
      expect(cut.interrupted).toBe(true);
      expect(barge.metadata).toMatchObject({ barge_in: true, barge_in_honoured: true });
      // The caller started 1.2 s into the reply.
      expect(barge.audio!.start_time! - cut.audio!.start_time!).toBeCloseTo(1.2, 1);
      const tt = new TurnTakingNaturalnessMetric();
      tt.measure(tc);
      const kinds = (tt.score_breakdown as { transitions: Array<{ kind: string; from_turn: number; to_turn: number }> }).transitions;
      expect(kinds).toContainEqual(expect.objectContaining({ kind: "user_barge_in", from_turn: 1, to_turn: 2 }));
      expect(tc.turns.filter((t) => t.interrupted === true)).toHaveLength(1);
    }));
  });
});

describe("agent speaks first", () => {
  it("records the greeting as turn 0 before the caller's first turn, half and full duplex", async () => {
    const a = await agent({ delayMs: 300, greeting: "Hello, thanks for calling." });
    for (const duplex of [false, true]) {
      const { results, run } = await runScriptedCalls(
        [parseScript({ name: "greeted", agent_speaks_first: true, turns: [{ text: "Where is my order?" }] }, "/", "test:greeted", "greeted")],
        () => makeConnector("realtime", a),
        { outDir: join(out, `greeting-${duplex}`), tts: CALLER_TTS, duplex },
      );
      expect(results[0].error).toBeNull();
      const tc = results[0].testCase!;
      expect(tc.turns.map((t) => t.role)).toEqual(["assistant", "user", "assistant"]);
      expect(tc.turns[0].content).toBe("Hello, thanks for calling.");
      // The greeting is the call's first audio: call-clock zero.
      expect(tc.turns[0].audio!.start_time).toBe(0);
      expect(tc.turns[1].audio!.start_time!).toBeGreaterThan(tc.turns[0].audio!.duration!);
      expect(readdirSync(join(out, `greeting-${duplex}`, run.simulationFolder))).toContain("deepeval-turn-0-assistant.wav");
    }
  });
});

describe("misbehaving agents", () => {
  // `duplex` overrides for duplex calls: the generic connector signals completion there, so a stalled
  // reply is believed until the hard cap instead of ending on the frame gap.
  const cases: Array<{ misbehave: Misbehaviour; endReason: string; events: string[]; turns: number; duplex?: { events: string[]; turns: number } }> = [
    { misbehave: "never-answer", endReason: "idle_timeout", events: ["agent_failed_to_respond", "unexpected_end"], turns: 1 },
    { misbehave: "hang-up-mid-reply", endReason: "agent_hangup", events: ["unexpected_end"], turns: 2 },
    { misbehave: "garbage", endReason: "error", events: ["unexpected_end"], turns: 2 },
    { misbehave: "oversized", endReason: "error", events: ["unexpected_end"], turns: 2 },
    { misbehave: "trickle", endReason: "idle_timeout", events: ["unexpected_end"], turns: 2 },
    { misbehave: "stall", endReason: "idle_timeout", events: ["agent_failed_to_respond", "unexpected_end"], turns: 3, duplex: { events: ["unexpected_end"], turns: 2 } },
  ];
  const MAX_TURN_S = 2;

  it("end each call cleanly with the right end_reason and critical events within the turn timeout, while a healthy call beside them completes", async () => {
    const healthy = await agent({ delayMs: 300 });
    const bad = new Map<Misbehaviour, ReferenceAgent>();
    for (const c of cases) bad.set(c.misbehave, await agent({ delayMs: 300, misbehave: c.misbehave, trickleIntervalMs: 100 }));
    const scripts = [
      ...cases.map((c) => script(`bad-${c.misbehave}`, [{ text: "Where is my order?" }, { text: "Hello, are you there?" }])),
      script("healthy", [{ text: "Where is my order?" }, { text: "Thank you." }]),
    ];
    for (const duplex of [false, true]) {
      const t0 = monotonicMs();
      const { results } = await runScriptedCalls(
        scripts,
        (s) => {
          const m = s.name.replace(/^bad-/, "") as Misbehaviour;
          const a = bad.get(m) ?? healthy;
          return new WebSocketConnector({ url: `${a.url}/generic`, turnDetection: { preset: "eager", maxTurnTimeoutS: MAX_TURN_S }, receiveTranscriptKey: "text", turnCompleteType: "turn_complete", maxFrameBytes: 1024 * 1024 });
        },
        { outDir: join(out, `misbehave-${duplex}`), tts: CALLER_TTS, duplex, concurrency: scripts.length },
      );
      // Two caller turns of ~1.5 s + pad, replies and at most one hard cap: well under a minute.
      expect(monotonicMs() - t0).toBeLessThan(4 * (1.5 + 1.5 + MAX_TURN_S) * 1000);
      const ok = results.find((r) => r.name === "healthy")!;
      expect(ok.error).toBeNull();
      expect(ok.testCase!.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(responsiveness(ok.testCase!).score).toBe(1);
      for (const c of cases) {
        const r = results.find((x) => x.name === `bad-${c.misbehave}`)!;
        const label = `${c.misbehave} ${duplex ? "duplex" : "half"}`;
        expect(r.testCase, label).not.toBeNull();
        const tc = r.testCase!;
        expect(tc.metadata?.end_reason, label).toBe(c.endReason);
        const want = duplex && c.duplex ? c.duplex : c;
        expect(tc.turns.length, label).toBe(want.turns);
        const m = responsiveness(tc);
        expect(m.score, label).toBe(0);
        expect((m.score_breakdown as { events: Array<{ type: string }> }).events.map((e) => e.type), label).toEqual(want.events);
        // The written JSON carries the same end_reason (the test case is written even then).
        expect(JSON.parse(readFileSync(r.testCasePath!, "utf8")).metadata.end_reason).toBe(c.endReason);
      }
      const garbage = results.find((r) => r.name === "bad-garbage")!;
      expect(garbage.error!.message).toMatch(/^call bad-garbage: agent frame \d+ \(text, \d+ bytes\): not valid JSON/);
      const oversized = results.find((r) => r.name === "bad-oversized")!;
      expect(oversized.error!.message).toMatch(/call bad-oversized: agent frame \d+: an agent frame exceeded maxFrameBytes \(1048576 bytes\)/);
    }
  });
});

describe("capture output", () => {
  it("scores from the folder with no conversion, one record per call, the same scores from the JSON and from the simulation folder", async () => {
    const a = await agent({ delayMs: 500 });
    const dir = join(out, "scored");
    const { results, run } = await runScriptedCalls(
      [script("order-status", [{ text: "Hi, I need help with an order." }, { text: "It is number four two seven.", pause_before: 0.5 }]), script("second", [{ text: "Where is my order?" }])],
      () => makeConnector("realtime", a),
      { outDir: dir, tts: CALLER_TTS, concurrency: 2 },
    );
    expect(results.every((r) => r.error === null)).toBe(true);
    const names = readdirSync(dir).sort();
    expect(names).toEqual(["order-status.json", "recordings", run.simulationFolder, "second.json", "voxmetrics-capture.json"].sort());
    expect(readdirSync(join(dir, run.simulationFolder)).sort()).toEqual(["order-status", "second"]);
    expect(readdirSync(join(dir, run.simulationFolder, "order-status")).sort()).toEqual([
      "deepeval-conversation.wav", "deepeval-turn-1-assistant.wav", "deepeval-turn-1-user.wav", "deepeval-turn-2-assistant.wav", "deepeval-turn-2-user.wav",
    ]);
    // Discovery of the whole folder: one call per script (not also the simulation folders and recordings).
    const found = discoverCalls([dir]);
    expect(found.calls.map((c) => bareId(c.id)).sort()).toEqual(["order-status.json#0", "second.json#0"]);
    // The same call read three ways: the JSON, the simulation folder, the stereo recording.
    const fromJson = loadDeepevalJsonFile(join(dir, "order-status.json"))[0].testCase!;
    const simRef = discoverCalls([join(dir, run.simulationFolder, "order-status")]).calls[0];
    expect(simRef.format).toBe("deepeval-sim-folder");
    const fromSim = loadCall(simRef).testCase;
    expect(fromSim.turns.map((t) => t.audio!.start_time)).toEqual(fromJson.turns.map((t) => t.audio!.start_time));
    const scoresJson = scoreTestCase(fromJson).metrics;
    const scoresSim = scoreTestCase(fromSim).metrics;
    for (const [name, m] of Object.entries(scoresJson)) expect(scoresSim[name].score, name).toBe(m.score);
    expect(scoresJson["Turn-Taking Naturalness"].skipped).toBe(false);
    const stereoRef = discoverCalls([join(dir, "recordings", "order-status.wav")]).calls[0];
    expect(stereoRef.format).toBe("dual-channel");
    const fromStereo = loadCall(stereoRef).testCase;
    expect(fromStereo.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // Turn starts on the call clock agree between the recording's VAD and the JSON within a VAD frame or two.
    fromStereo.turns.forEach((t, i) => expect(Math.abs(t.audio!.start_time! - fromJson.turns[i].audio!.start_time!)).toBeLessThan(0.05));
    // The stored caller clip is the audio actually spoken (no trailing-silence pad) and latency metadata is there.
    const [user, assistant] = fromJson.turns;
    expect(user.audio!.duration!).toBeLessThan(3);
    expect(assistant.metadata).toMatchObject({ end_of_turn: "turn_complete", transcript_source: "connector" });
    expect(assistant.metadata!.user_perceived_latency_ms as number).toBeGreaterThan(450);
    expect(assistant.content).toBe(REPLY_TEXT);
  });
});

describe("connectors", () => {
  it("speaks ElevenLabs' protocol (initiation metadata sets the rates, ping → pong, agent_response, completion)", async () => {
    const a = await agent({ delayMs: 300 });
    const { results } = await runScriptedCalls([script("eleven", [{ text: "Where is my order?" }])], () => new ElevenLabsConnector({ url: `${a.url}/elevenlabs`, turnDetection: "eager" }), {
      outDir: join(out, "eleven"),
      tts: CALLER_TTS,
    });
    const tc = results[0].testCase!;
    expect(results[0].error).toBeNull();
    expect(tc.turns.map((t) => t.role)).toEqual(["user", "assistant"]);
    expect(tc.turns[0].audio!.sampleRate).toBe(16000);
    expect(tc.turns[1].content).toBe(REPLY_TEXT);
    expect(tc.turns[1].metadata!.end_of_turn).toBe("turn_complete");
    expect(a.pongs).toBeGreaterThan(0);
  });

  it("takes header secrets from the environment and never writes them out", async () => {
    const a = await agent({ delayMs: 300 });
    process.env.VOX_TEST_SECRET = "s3cr3t-value";
    try {
      expect(expandHeaders({ Authorization: "Bearer ${VOX_TEST_SECRET}" })).toEqual({ Authorization: "Bearer s3cr3t-value" });
      expect(() => expandHeaders({ "api-key": "${VOX_NOT_SET_ANYWHERE}" })).toThrow(/header api-key refers to environment variable VOX_NOT_SET_ANYWHERE, which is not set/);
      const lines: string[] = [];
      const { results } = await runScriptedCalls([script("secret", [{ text: "Where is my order?" }])], () => new WebSocketConnector({ url: `${a.url}/generic?token=abc`, headers: { Authorization: "Bearer ${VOX_TEST_SECRET}" }, turnDetection: "eager" }), {
        outDir: join(out, "secret"),
        tts: CALLER_TTS,
        connectorInfo: { kind: "websocket", headers: ["Authorization"] },
        onProgress: (m) => lines.push(m),
      });
      expect(results[0].error).toBeNull();
      const written = readFileSync(results[0].testCasePath!, "utf8");
      expect(written).not.toContain("s3cr3t-value");
      expect(lines.join("\n")).not.toContain("s3cr3t-value");
    } finally {
      delete process.env.VOX_TEST_SECRET;
    }
  });

  it("realtime: push-to-talk commits each caller turn (no trailing silence) and GA event names are understood", async () => {
    const a = await agent({ delayMs: 300, vadSilenceMs: 5000 });
    const { results } = await runScriptedCalls([script("ptt-ga", [{ text: "Where is my order?" }])], () => new RealtimeConnector({ url: `${a.url}/realtime`, turnMode: "push-to-talk", apiVersion: "ga", turnDetection: "eager" }), {
      outDir: join(out, "ptt"),
      tts: CALLER_TTS,
    });
    expect(results[0].error).toBeNull();
    const [user, assistant] = results[0].testCase!.turns;
    expect(user.metadata!.trailing_silence_ms).toBe(0);
    // The agent's VAD window (5 s) never closed: only the commit ended the caller's turn.
    expect(assistant.content).toBe(REPLY_TEXT);
    expect(assistant.metadata!.end_of_turn).toBe("turn_complete");
  });

  it("generic WebSocket: binary uplink frames", async () => {
    const a = await agent({ delayMs: 300 });
    const { results } = await runScriptedCalls([script("binary", [{ text: "Where is my order?" }])], () => new WebSocketConnector({ url: `${a.url}/generic`, binaryOutbound: true, turnCompleteType: "turn_complete", turnDetection: "eager" }), {
      outDir: join(out, "binary"),
      tts: CALLER_TTS,
    });
    expect(results[0].error).toBeNull();
    expect(results[0].testCase!.turns.map((t) => t.role)).toEqual(["user", "assistant"]);
  });

  it("ElevenLabs: with an API key the connector asks the REST API for a signed URL (local server with the documented shapes)", async () => {
    const a = await agent({ delayMs: 300 });
    const seen: Array<{ url: string; key: string | undefined }> = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", key: req.headers["xi-api-key"] as string | undefined });
      if (req.headers["xi-api-key"] !== "k-123") {
        res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ detail: "invalid api key" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ signed_url: `${a.url}/elevenlabs?conversation_signature=abc` }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await elevenLabsUrl({ agentId: "agent 1", apiKey: "k-123", apiBaseUrl: base })).toBe(`${a.url}/elevenlabs?conversation_signature=abc`);
      expect(seen[0]).toEqual({ url: "/v1/convai/conversation/get-signed-url?agent_id=agent%201", key: "k-123" });
      await expect(elevenLabsUrl({ agentId: "x", apiKey: "wrong", apiBaseUrl: base })).rejects.toThrow("signed URL request failed: HTTP 401");
      expect(await elevenLabsUrl({ agentId: "x", apiKey: null, apiBaseUrl: base }, {})).toBe(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/convai/conversation?agent_id=x`);
      const c = await ElevenLabsConnector.create({ agentId: "agent 1", apiKey: "k-123", apiBaseUrl: base, turnDetection: "eager" });
      const { results } = await runScriptedCalls([script("signed", [{ text: "Where is my order?" }])], () => c, { outDir: join(out, "signed"), tts: CALLER_TTS });
      expect(results[0].error).toBeNull();
      expect(results[0].testCase!.turns[1].content).toBe(REPLY_TEXT);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("callback: a text agent becomes a voice agent with a TTS and an STT", async () => {
    const heard: string[] = [];
    const stt: SpeechToText = {
      modelName: "fixed-transcript",
      truncatedAudioPadSeconds: 0,
      // The STT models are another module's work; this one reports what the test caller said.
      transcribe: async (audio) => {
        heard.push(`${decodeAudio(audio.getBytes()).frames} samples`);
        return { text: "where is my order", costUsd: null };
      },
    };
    const connector = CallbackConnector.fromTextAgent((text) => `You asked: ${text}.`, { tts: CALLER_TTS, stt }, { turnDetection: "eager" });
    const { results } = await runScriptedCalls([script("text-agent", [{ text: "Where is my order?" }])], () => connector, { outDir: join(out, "text-agent"), tts: CALLER_TTS });
    expect(results[0].error).toBeNull();
    const [user, assistant] = results[0].testCase!.turns;
    expect(assistant.content).toBe("You asked: where is my order.");
    expect(heard).toEqual([`${Math.round(user.audio!.duration! * 24000)} samples`]);
    expect(results[0].testCase!.metadata!.protocol).toBe("callback");
  });

  it("supports await using (async disposal closes the connection)", async () => {
    const a = await agent({ delayMs: 300 });
    {
      await using c = new WebSocketConnector({ url: `${a.url}/generic` });
      await c.connect();
      await new Promise((r) => setTimeout(r, 50));
      expect(a.openConnections()).toBe(1);
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(a.openConnections()).toBe(0);
  });
});
