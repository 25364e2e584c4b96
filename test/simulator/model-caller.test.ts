// The model caller, the model judge and the OpenAI-compatible TTS / STT inside simulations, against a local server implementing the chat-completions and audio endpoints' shapes and errors (timeouts, 429 with Retry-After, malformed JSON).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Audio,
  CallbackConnector,
  ModelCallerPolicy,
  ModelJudge,
  OpenAIChatModel,
  OpenAISpeechToText,
  OpenAITextToSpeech,
  ScriptedCallerPolicy,
  WebSocketConnector,
  parseGolden,
  runSimulations,
  writeWavPcm16,
  type ConversationalGolden,
} from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { synthesizeSpeech } from "../../examples/synthetic-speech.js";
import { CALLER_TTS, REPLY_TEXT, callbackAgent } from "../connectors/live-helpers.js";
import { startFakeOpenAI, TEST_KEY, type FakeOpenAI } from "../speech/openai-server.js";

let server: FakeOpenAI;
let dir: string;
let agent: ReferenceAgent;
const env = () => ({ OPENAI_API_KEY: TEST_KEY, OPENAI_BASE_URL: server.url });
const chat = (client: Record<string, unknown> = {}) =>
  new OpenAIChatModel({ model: "test-chat", price: { inputPerMillionTokensUsd: 1, outputPerMillionTokensUsd: 2 }, client: { timeoutMs: 2000, maxRetries: 1, retryBaseDelayMs: 50, ...client } }, { env: env() });
const caller = (content: Record<string, unknown>) => JSON.stringify({ utterance: "Where is my parcel?", expected_outcome_reached: false, end_call: false, ...content });

beforeAll(async () => {
  server = await startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "vox-sim-model-"));
  agent = await startReferenceAgent({ vadSilenceMs: 200, delayMs: 300, replies: ["Thanks for calling. I can see your account here, and I will now read out the details of your last three orders."] });
});
afterEach(() => server.reset());
afterAll(async () => {
  await server.close();
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

function golden(name: string, extra: Record<string, unknown> = {}): ConversationalGolden {
  return parseGolden({ name, scenario: "The caller's parcel is late.", expected_outcome: "The agent gives a delivery date.", persona: { characteristics: "a busy nurse", name: "Ann" }, ...extra }, dir, `test:${name}`);
}
const callback = () => new CallbackConnector(callbackAgent(0, []), { turnDetection: "eager" });

/** Every file under `root`, as text. */
function allText(root: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(readFileSync(p, "latin1"));
    }
  };
  walk(root);
  return out.join("\n");
}

describe("model caller", () => {
  it("asks the chat endpoint for each utterance with the persona, scenario and the call so far, stops at max_turns, accounts cost, never writes the key", async () => {
    server.chat = { content: caller({}), usage: { prompt_tokens: 100, completion_tokens: 20 } };
    const out = join(dir, "caller");
    const model = chat();
    const { results } = await runSimulations([golden("model")], callback, { outDir: out, tts: CALLER_TTS, maxTurns: 3, makePolicy: () => new ModelCallerPolicy(model) });
    const r = results[0];
    expect(r.error).toBeNull();
    expect(r.record!.endReason).toBe("max_turns");
    expect(r.testCase!.turns.map((t) => `${t.role}:${t.content}`)).toEqual(Array.from({ length: 3 }, () => ["user:Where is my parcel?", `assistant:${REPLY_TEXT}`]).flat());
    const reqs = server.requests.filter((q) => q.path === "/v1/chat/completions");
    expect(reqs).toHaveLength(3);
    for (const q of reqs) expect(q.problems).toEqual([]);
    const messages = reqs[2].json!.messages as Array<{ role: string; content: string }>;
    expect(messages[0].role).toBe("system");
    expect(messages[0].content).toContain("a busy nurse");
    expect(messages[0].content).toContain("The caller's parcel is late.");
    expect(messages[0].content).toContain("The agent gives a delivery date.");
    // The caller's own lines are assistant messages, the agent's are user messages; the last turn is announced.
    expect(messages.slice(1, 5).map((m) => m.role)).toEqual(["assistant", "user", "assistant", "user"]);
    expect(messages.at(-1)!.content).toMatch(/last turn/);
    expect(reqs[0].json!.response_format).toEqual({ type: "json_object" });
    expect((r.testCase!.metadata!.simulation as { cost_usd: { chat: number } }).cost_usd.chat).toBeCloseTo((3 * (100 * 1 + 20 * 2)) / 1e6, 12);
    expect(allText(out)).not.toContain(TEST_KEY);
  });

  it("ends with end_reason expected_outcome when the model says the outcome is reached", async () => {
    server.chat = { content: caller({ utterance: "Great, Friday works. Bye.", expected_outcome_reached: true }) };
    const { results } = await runSimulations([golden("reached")], callback, { outDir: join(dir, "reached"), tts: CALLER_TTS, makePolicy: () => new ModelCallerPolicy(chat()) });
    expect(results[0].record!.endReason).toBe("expected_outcome");
    expect(results[0].testCase!.turns.filter((t) => t.role === "user")).toHaveLength(1);
  });

  it("waits out a 429's Retry-After and goes on", async () => {
    server.chat = { content: caller({ end_call: true, utterance: "Thanks, bye." }) };
    server.queueFaults("/v1/chat/completions", { kind: "status", status: 429, headers: { "retry-after": "1" } });
    const { results } = await runSimulations([golden("limited")], callback, { outDir: join(dir, "limited"), tts: CALLER_TTS, makePolicy: () => new ModelCallerPolicy(chat()) });
    expect(results[0].error).toBeNull();
    expect(results[0].record!.endReason).toBe("caller_sign_off");
    const reqs = server.requests.filter((q) => q.path === "/v1/chat/completions");
    expect(reqs).toHaveLength(2);
    expect(reqs[1].receivedAtMs - reqs[0].receivedAtMs).toBeGreaterThanOrEqual(950);
  });

  it("a malformed reply, a reply without an utterance or a timeout ends that call with end_reason caller_model_error, never the batch", async () => {
    server.chat = { content: caller({ end_call: true, utterance: "Thanks, bye." }) };
    // Calls run one after the other: the first three requests fail, each in its own way (no retries).
    server.queueFaults("/v1/chat/completions", { kind: "malformed-json" }, { kind: "status", status: 200, body: JSON.stringify({ choices: [{ message: { content: '{"reason": "no utterance"}' } }] }) }, { kind: "hang" });
    const model = chat({ timeoutMs: 400, maxRetries: 0 });
    const t0 = performance.now();
    const { results } = await runSimulations([golden("bad-json"), golden("no-utterance"), golden("timeout"), golden("fine")], callback, { outDir: join(dir, "faults"), tts: CALLER_TTS, makePolicy: () => new ModelCallerPolicy(model) });
    expect(performance.now() - t0).toBeLessThan(10_000);
    const [a, b, c, d] = results;
    for (const r of [a, b, c]) {
      expect(r.record!.endReason, r.name).toBe("caller_model_error");
      expect(r.error!.message).toContain("test-chat");
    }
    expect(a.error!.code).toBe("MODEL_BAD_RESPONSE");
    expect(b.error!.message).toMatch(/utterance/);
    expect(c.error!.code).toBe("MODEL_TIMEOUT");
    expect(d.error).toBeNull();
    expect(d.record!.endReason).toBe("caller_sign_off");
  });
});

describe("model judge (duplex, reference agent)", () => {
  const connector = () => new WebSocketConnector({ url: `${agent.url}/generic`, turnDetection: { preset: "eager", maxTurnTimeoutS: 15 }, receiveTranscriptKey: "text", turnCompleteType: "turn_complete", trailingSilenceMs: 300 });

  it("barges in with the judge's utterance and records its reason", async () => {
    server.chat = { content: JSON.stringify({ should_interrupt: true, reason: "already knows the answer", utterance: "Sorry, just the date please." }) };
    const g = golden("judged", { turns: [{ role: "user", content: "Where is my order?" }], persona: { characteristics: "impatient", interruption_behavior: { frequency: "frequent", overlap: "adaptive" } } });
    const { results } = await runSimulations([g], connector, { outDir: join(dir, "judge"), tts: CALLER_TTS, duplex: true, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script), makeJudge: () => new ModelJudge(chat()) });
    const tc = results[0].testCase!;
    const barge = tc.turns.find((t) => t.metadata?.barge_in === true)!;
    expect(barge.content).toBe("Sorry, just the date please.");
    expect(barge.metadata).toMatchObject({ judge_reason: "already knows the answer", barge_in_honoured: true });
    expect(tc.turns.some((t) => t.interrupted === true)).toBe(true);
    const q = server.requests.find((x) => x.path === "/v1/chat/completions")!;
    const msgs = q.json!.messages as Array<{ content: string }>;
    expect(msgs[0].content).toMatch(/interrupt/);
    expect(msgs[1].content).toMatch(/heard so far/);
  }, 60_000);

  it("a malformed judge reply ends the call with end_reason caller_model_error", async () => {
    server.chat = { content: "{\"should_interrupt\": maybe" };
    const g = golden("bad-judge", { turns: [{ role: "user", content: "Where is my order?" }], persona: { characteristics: "impatient", interruption_behavior: { frequency: "frequent", overlap: "adaptive" } } });
    const { results } = await runSimulations([g], connector, { outDir: join(dir, "bad-judge"), tts: CALLER_TTS, duplex: true, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script), makeJudge: () => new ModelJudge(chat({ maxRetries: 0 })) });
    expect(results[0].record!.endReason).toBe("caller_model_error");
    expect(results[0].error!.code).toBe("MODEL_BAD_RESPONSE");
    expect(results[0].testCase!.metadata!.end_reason).toBe("caller_model_error");
    // The agent was still talking when the call ended: its turn was not heard to its end signal.
    const cut = results[0].testCase!.turns.find((t) => t.role === "assistant")!;
    expect(cut.metadata).toMatchObject({ ended_without_agent_signal: true, intended_content: expect.stringMatching(/^Thanks for calling/) });
    expect(cut.interrupted ?? null).toBeNull();
    expect(cut.metadata!.intended_content).not.toBe(cut.content);
    expect((cut.metadata!.intended_content as string).startsWith(cut.content)).toBe(true);
  }, 60_000);
});

describe("streaming STT fallback (duplex, no connector transcript)", () => {
  it("the caller hears the agent through STT of every ~1 s of new audio, barges on it, and the cut turn's content is the STT of what was played", async () => {
    server.transcription = { text: "thanks for calling i can see your account here" };
    const stt = new OpenAISpeechToText({ model: "whisper-1", client: { maxRetries: 0 } }, { env: env() });
    const noTranscript = () => new WebSocketConnector({ url: `${agent.url}/generic`, turnDetection: { preset: "eager", maxTurnTimeoutS: 15 }, turnCompleteType: "turn_complete", trailingSilenceMs: 300 });
    const g = golden("stt-heard", { turns: [{ role: "user", content: "Where is my order?" }, { role: "user", content: "Just the date please." }], persona: { characteristics: "impatient", interruption_behavior: { frequency: "frequent", overlap: "adaptive" } } });
    const { results } = await runSimulations([g], noTranscript, { outDir: join(dir, "stt-heard"), tts: CALLER_TTS, stt, duplex: true, seed: 7, maxTurns: 2, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    expect(results[0].error).toBeNull();
    const tc = results[0].testCase!;
    const cut = tc.turns.find((t) => t.interrupted === true)!;
    expect(cut).toBeDefined();
    expect(cut.content).toBe("thanks for calling i can see your account here");
    expect(cut.metadata!.intended_content).toBeUndefined();
    const barge = tc.turns.find((t) => t.metadata?.barge_in === true)!;
    expect(barge.content).toBe("Just the date please.");
    // Fallback passes ran while the agent talked (each on the audio so far), then the cut turn was transcribed whole, padded.
    const uploads = server.requests.filter((q) => q.path === "/v1/audio/transcriptions");
    expect(uploads.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe("OpenAI-compatible TTS and STT inside a simulation", () => {
  it("speaks through /audio/speech (persona voice passed), hears through /audio/transcriptions when the connector gives no transcript, and accounts both costs", async () => {
    server.transcription = { text: "your parcel arrives friday", usage: { type: "tokens", input_tokens: 50, output_tokens: 10, input_token_details: { audio_tokens: 50 } } };
    const reply = synthesizeSpeech("Your parcel arrives Friday.", { sampleRate: 24000, pitchHz: 190, seed: 7 });
    const noTranscript = () => new CallbackConnector(async () => Audio.fromBytes(writeWavPcm16(reply, 24000), "audio/wav"), { turnDetection: "eager" });
    const tts = new OpenAITextToSpeech({ model: "tts-1", client: { maxRetries: 0 } }, { env: env() });
    const stt = new OpenAISpeechToText({ model: "gpt-4o-transcribe", client: { maxRetries: 0 } }, { env: env() });
    const g = golden("openai", { turns: [{ role: "user", content: "Where is my parcel?" }], persona: { characteristics: "calm", voice: "nova", multilingual_stt: true } });
    const { results } = await runSimulations([g], noTranscript, { outDir: join(dir, "openai"), tts, stt, makePolicy: (x) => new ScriptedCallerPolicy(x.script) });
    const r = results[0];
    expect(r.error).toBeNull();
    const tc = r.testCase!;
    expect(tc.turns[1]).toMatchObject({ role: "assistant", content: "your parcel arrives friday", metadata: { transcript_source: "stt" } });
    const speech = server.requests.filter((q) => q.path === "/v1/audio/speech");
    expect(speech.map((q) => q.json!.voice)).toEqual(["nova", "nova"]);
    expect(speech.map((q) => q.json!.input)).toEqual(["Where is my parcel?", "That's everything, thank you. Goodbye."]);
    const transcriptions = server.requests.filter((q) => q.path === "/v1/audio/transcriptions");
    expect(transcriptions.length).toBe(2);
    // multilingual_stt: the language is left to the model (no fixed language sent).
    for (const q of transcriptions) expect(q.fields!.language).toBeUndefined();
    const cost = (tc.metadata!.simulation as { cost_usd: { tts: number; stt: number } }).cost_usd;
    expect(cost.tts).toBeCloseTo(((19 + 38) * 15) / 1e6, 12);
    expect(cost.stt).toBeGreaterThan(0);
  });
});
