// Done-when: the bundled Voice Live dataset (legacy and Foundry shapes, multi-turn, a tool call, a data: URI) replays against the reference agent's realtime protocol; the outputs match F4.2/F4.6 key for key; score reads the folder and its latencies match the agent's injected delay.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, discoverCalls, loadCall, loadStubTools, resolveScoreOptions, runReplay, scoreCall, type ReplayRunResult } from "../../src/index.js";
import { bareId } from "../helpers/ids.js";
import { ERROR_RECORD_KEYS, TURN_RECORD_KEYS } from "../../src/replay/records.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { BUNDLED_DATASET, BUNDLED_TOOLS, readJsonl, runOptions } from "./helpers.js";

const DELAY_MS = 700;
const WINDOW_MS = 300;
const TOLERANCE_MS = 20;
const SECRET = "sk-replay-test-secret-0123456789";

let out: string;
let agent: ReferenceAgent;
let result: ReplayRunResult;
let records: Record<string, unknown>[];
let timings: Record<string, unknown>[];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "vox-replay-"));
  agent = await startReferenceAgent({
    delayMs: DELAY_MS,
    vadSilenceMs: WINDOW_MS,
    replies: ["Your order ships tomorrow."],
    transcribe: (pcm, rate, n) => `caller utterance ${n + 1}`,
    toolCall: ({ utterance }) => (utterance === 0 ? { name: "get_order_status", arguments: '{"order_id":"4729"}' } : null),
  });
  process.env.VOX_REPLAY_TEST_KEY = SECRET;
  result = await runReplay(
    runOptions(BUNDLED_DATASET, out, `${agent.url}/realtime`, {
      concurrency: 3,
      tools: await loadStubTools(BUNDLED_TOOLS),
      headers: { "api-key": SECRET },
      apiKeyEnv: "VOX_REPLAY_TEST_KEY",
    }),
  );
  records = readJsonl(join(out, "dataset.jsonl"));
  timings = readJsonl(join(out, "dataset.timing.jsonl"));
}, 60_000);

afterAll(async () => {
  await agent.close();
  expect(agent.openConnections()).toBe(0);
  delete process.env.VOX_REPLAY_TEST_KEY;
  rmSync(out, { recursive: true, force: true });
});

/**
 * The delay the agent actually injected for a turn (its reply's first frame − the end of the caller's
 * speech, both as the agent placed them on the shared monotonic clock): DELAY_MS plus the agent's own
 * timer lateness, which the replay must see too.
 */
function injectedDelay(t: Record<string, unknown>): number {
  const connection = Number(String(t.session_id).replace("sess_", ""));
  const r = agent.records.find((x) => x.connection === connection && x.utterance === (t.turn_number as number) - 1)!;
  expect(r.replyFirstFrameAt! - r.callerSpeechEndAt).toBeGreaterThanOrEqual(DELAY_MS);
  return r.replyFirstFrameAt! - r.callerSpeechEndAt;
}

describe("replay of the bundled dataset against the reference agent (realtime protocol)", () => {
  it("one session per conversation, one record per dataset turn, in dataset order", () => {
    expect(result).toMatchObject({ datasets: 1, conversations: 3, records: 4, errorRecords: 0 });
    expect(records.map((r) => [r.conversation_id, r.turn_number])).toEqual([
      ["order-help", 1],
      ["order-help", 2],
      ["order-tools", 1],
      ["thanks", 1],
    ]);
    expect(new Set(agent.sessions.map((s) => s.connection)).size).toBe(3);
  });

  it("every record has the F4.2 keys in order, metrics the F4.5 keys in order", () => {
    for (const r of records) {
      expect(Object.keys(r)).toEqual([...TURN_RECORD_KEYS]);
      expect(Object.keys(r.metrics as object)).toEqual(["transcription_latency_seconds", "text_response_latency_seconds", "audio_response_latency_seconds", "logical_turn_number", "audio_response_received"]);
      expect((r.metrics as Record<string, unknown>).audio_response_received).toBe(true);
    }
    expect(ERROR_RECORD_KEYS).toEqual(["conversation_id", "source_file", "error", "turn_number"]);
  });

  it("query history, ground truth, transcript and sources follow F4.2/F4.3", () => {
    const [t1, t2, tools, media] = records;
    expect(t1.query).toEqual([
      { role: "system", content: "You are a helpful retail agent." },
      { role: "user", content: [{ type: "text", text: "Hi, I need help with my order." }] },
    ]);
    expect(t1.transcript).toBe("caller utterance 1");
    expect(t1.ground_truth_query_used).toBe(true);
    expect(t1.response).toEqual([{ role: "assistant", content: "Your order ships tomorrow." }]);
    // The second turn repeats the first as the service heard it (its transcription), then the answer.
    expect(t2.query).toEqual([
      { role: "system", content: "You are a helpful retail agent." },
      { role: "user", content: [{ type: "text", text: "caller utterance 1" }] },
      { role: "assistant", content: "Your order ships tomorrow." },
      { role: "user", content: [{ type: "text", text: "Four seven two nine." }] },
    ]);
    expect(t2.ground_truth).toBe("It ships tomorrow. OR Shipping tomorrow.");
    expect(t1.source_file).toBe(join(BUNDLED_DATASET, "..", "clips", "user-1.wav"));
    expect(media.source_file).toBe("(media)");
    expect(media.conversation_id).toBe("thanks");
    expect((media.query as unknown[])[0]).toEqual({ role: "system", content: "You are a helpful retail agent." });
    expect(tools.tool_definitions).toEqual([expect.objectContaining({ name: "get_order_status" })]);
  });

  it("the tool call is answered by the stub table, sent back, and recorded with its result", () => {
    const tools = records[2];
    expect(tools.tool_calls).toEqual([{ call_id: expect.any(String), name: "get_order_status", arguments: '{"order_id":"4729"}' }]);
    const callId = (tools.tool_calls as Array<{ call_id: string }>)[0].call_id;
    const canned = JSON.stringify(JSON.parse(readFileSync(BUNDLED_TOOLS, "utf8")).get_order_status);
    expect(agent.toolOutputs).toEqual([{ connection: expect.any(Number), call_id: callId, output: canned }]);
    expect((tools.query as unknown[]).slice(-2)).toEqual([
      { role: "assistant", content: [{ type: "tool_call", tool_call_id: callId, name: "get_order_status", arguments: { order_id: "4729" } }] },
      { role: "tool", tool_call_id: callId, content: [{ type: "tool_result", tool_result: canned }] },
    ]);
    // Tools and instructions went to the service once, from the conversation's first entry (a dict wrapped in a list).
    const session = agent.sessions.find((s) => Array.isArray(s.session.tools))!.session;
    expect(session.tools).toEqual([expect.objectContaining({ name: "get_order_status" })]);
    expect(session.instructions).toBe("You are a retail agent with an order lookup tool. Use available tools when appropriate.");
    expect(timings[2].responses).toBe(2);
  });

  it("response audio per turn, and the sent clip, as 24 kHz WAVs", () => {
    for (const [conv, n] of [["order-help", 1], ["order-help", 2], ["order-tools", 1], ["thanks", 1]] as const) {
      const nn = String(n).padStart(2, "0");
      const reply = decodeAudio(new Uint8Array(readFileSync(join(out, conv, `turn_${nn}_response.wav`))));
      expect(reply.sampleRate).toBe(24000);
      expect(reply.samples.length).toBeGreaterThan(24000 * 0.5);
      expect(existsSync(join(out, conv, `turn_${nn}_input.wav`))).toBe(true);
    }
  });

  it("the operational summary has the F4.6 keys in order", () => {
    const summary = JSON.parse(readFileSync(join(out, "operational_summary.json"), "utf8"));
    expect(Object.keys(summary)).toEqual(["operational_metrics", "session_info"]);
    expect(summary.operational_metrics).toEqual({
      turns_processed: "4/4",
      expected_turns: 4,
      actual_turns: 4,
      vad_splitting_detected: false,
      turn_expansion_factor: 1,
      turns_with_audio_response: 4,
      turns_with_text_only_response: 0,
      audio_response_rate: 1,
    });
    expect(Object.keys(summary.session_info)).toEqual(["timestamp", "evaluation_mode", "session_id", "session_suffix"]);
    expect(summary.session_info.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(summary.session_info.session_id).toMatch(/^\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d$/);
  });

  it("the API key is used but never written", () => {
    const manifest = JSON.parse(readFileSync(join(out, "voxmetrics-replay.json"), "utf8"));
    expect(manifest.agent.api_key_env).toBe("VOX_REPLAY_TEST_KEY");
    expect(manifest.agent.header_names).toEqual(["api-key"]);
    for (const f of readdirSync(out, { recursive: true }) as string[]) {
      if (/\.(json|jsonl)$/.test(f)) expect(readFileSync(join(out, f), "utf8")).not.toContain(SECRET);
    }
  });

  it("honest timings: user-perceived latency = the injected delay; the harness's VAD-mode latency starts after the agent's VAD window", () => {
    for (const [i, t] of timings.entries()) {
      if (i === 2) continue; // the tool turn answers after the tool round trip
      expect(t.harness_anchor).toBe("speech_stopped_receipt");
      expect(Math.abs((t.user_perceived_latency_ms as number) - injectedDelay(t))).toBeLessThanOrEqual(TOLERANCE_MS);
      // The harness anchor is the speech_stopped receipt, a VAD window after the end of speech (the exact
      // difference is checked on crisp synthetic speech in replay-timing.test.ts).
      const harnessMs = ((records[i].metrics as Record<string, number>).audio_response_latency_seconds) * 1000;
      expect((t.user_perceived_latency_ms as number) - harnessMs).toBeGreaterThanOrEqual(WINDOW_MS - TOLERANCE_MS);
      expect(t.vad_split).toBe(false);
      expect(t.clip_sent_s).toBe(t.clip_duration_s);
      for (const k of ["send_start_s", "send_end_s", "caller_speech_end_s", "transcription_done_s", "first_text_s", "first_audio_s", "response_end_s"]) expect(typeof t[k]).toBe("number");
      expect(t.send_start_s as number).toBeLessThan(t.send_end_s as number);
      expect(t.first_audio_s as number).toBeLessThan(t.response_end_s as number);
    }
  });

  it("voxmetrics score reads the folder as is: real start times, the user-perceived latency, every metric scored", () => {
    const { calls, warnings } = discoverCalls([out]);
    expect(warnings).toEqual([]);
    expect(calls.map((c) => [c.format, c.error ?? null])).toEqual([
      ["voicelive-output", null],
      ["voicelive-output", null],
      ["voicelive-output", null],
    ]);
    const help = calls.find((c) => bareId(c.id).endsWith("#order-help"))!;
    const tc = loadCall(help).testCase;
    expect(tc.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
    for (const t of tc.turns) expect(t.audio?.start_time).toEqual(expect.any(Number));
    for (const [k, t] of tc.turns.filter((t) => t.role === "assistant").entries()) {
      expect(Math.abs(t.latency_ms! - injectedDelay(timings[k]))).toBeLessThanOrEqual(TOLERANCE_MS);
      expect(t.metadata?.latency_anchor).toBe("caller_speech_end");
    }
    const record = scoreCall({ ref: help, ingest: {}, score: resolveScoreOptions({}) });
    expect(record.status).toBe("ok");
    for (const m of ["Turn-Taking Naturalness", "Agent Responsiveness", "Voice Naturalness"]) expect(record.metrics![m].skipped, m).toBe(false);
    // The user-side WER of each caller turn, as the replay counted it.
    const userTurns = record.turns!.filter((t) => t.role === "user");
    expect(userTurns.map((t) => t.wer)).toEqual(
      timings.slice(0, 2).map((t) => {
        const w = t.user_wer as Record<string, number>;
        return { reference_words: w.reference_words, correct: w.correct, substitutions: w.substitutions, deletions: w.deletions, insertions: w.insertions, rate: w.wer };
      }),
    );
    expect(userTurns[0].wer).toMatchObject({ reference_words: 7, correct: 0, substitutions: 3, deletions: 4, insertions: 0 });
  });
});
