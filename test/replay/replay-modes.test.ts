// Replay modes against the reference agent: push-to-talk (commit + response.create, send-end anchor replaced by speech_stopped), the per-turn timeout on an agent that never answers, per-file sessions, the harness keepalive.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverCalls, loadCall, runReplay } from "../../src/index.js";
import { startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { BUNDLED_DATASET, readJsonl, runOptions, speechClip, writeDataset } from "./helpers.js";

let work: string;
const agents: ReferenceAgent[] = [];
let oneTurn: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "vox-replay-modes-"));
  oneTurn = writeDataset(join(work, "one"), "one.jsonl", [{ clip: speechClip("Where is my order?", 24000), rate: 24000, wav: "q.wav", line: { Question: "Where is my order?", conversationID: "one" } }]);
});

afterAll(async () => {
  for (const a of agents) await a.close();
  rmSync(work, { recursive: true, force: true });
});

async function agent(options: Parameters<typeof startReferenceAgent>[0]): Promise<ReferenceAgent> {
  const a = await startReferenceAgent(options);
  agents.push(a);
  return a;
}

describe("replay modes", () => {
  it("push-to-talk: the clip is committed and the agent answers at once; the session keeps its VAD configured", async () => {
    const a = await agent({ delayMs: 100, vadSilenceMs: 800, replies: ["Okay."] });
    const out = join(work, "ptt");
    await runReplay(runOptions(oneTurn, out, `${a.url}/realtime`, { drainMs: 0 }, { push_to_talk: true }));
    const [record] = readJsonl(join(out, "one.jsonl"));
    const [t] = readJsonl(join(out, "one.timing.jsonl"));
    expect(record.response).toEqual([{ role: "assistant", content: "Okay." }]);
    expect(a.sessions[0].session.turn_detection).toMatchObject({ type: "azure_semantic_vad_multilingual", create_response: false });
    // The agent ended the utterance on the commit, long before its 800 ms window: the answer comes right after the clip.
    expect((t.first_audio_s as number) - (t.send_end_s as number)).toBeLessThan(0.5);
    expect(t.harness_anchor).toBe("speech_stopped_receipt");
  }, 30_000);

  it("GA event names: the session.update in the GA shape carries the config (its silence window reaches the agent's VAD)", async () => {
    const a = await agent({ delayMs: 100, vadSilenceMs: 1000, replies: ["Okay."] });
    const out = join(work, "ga");
    await runReplay(runOptions(oneTurn, out, `${a.url}/realtime`, { drainMs: 0, apiVersion: "ga" }, { silence_duration_ms: 400 }));
    const [record] = readJsonl(join(out, "one.jsonl"));
    const [t] = readJsonl(join(out, "one.timing.jsonl"));
    expect(a.sessions[0].session).toMatchObject({ type: "realtime", audio: { input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { silence_duration_ms: 400 } } } });
    expect(record.response).toEqual([{ role: "assistant", content: "Okay." }]);
    expect((record.metrics as Record<string, unknown>).audio_response_received).toBe(true);
    // The agent waited the configured 400 ms, not its own 1000 ms (the accuracy of such waits is
    // measured in replay-timing.test.ts, which runs alone).
    const window = (t.speech_stopped_s as number[]).at(-1)! - (t.caller_speech_end_s as number);
    expect(window).toBeGreaterThanOrEqual(0.38);
    expect(window).toBeLessThan(0.7);
  }, 30_000);

  it("a conversation id with path separators or dots writes inside --out, and score still finds its audio", async () => {
    const a = await agent({ delayMs: 50, vadSilenceMs: 200, replies: ["Okay."] });
    const dir = join(work, "odd");
    const dataset = writeDataset(dir, "odd.jsonl", [{ clip: speechClip("Hello", 24000), rate: 24000, wav: "h.wav", line: { Question: "Hello", conversationID: "../escape/x" } }]);
    const out = join(dir, "out");
    await runReplay(runOptions(dataset, out, `${a.url}/realtime`, { drainMs: 0 }));
    expect(existsSync(join(out, ".._escape_x", "turn_01_response.wav"))).toBe(true);
    expect(existsSync(join(dir, "escape"))).toBe(false);
    const [call] = discoverCalls([out]).calls;
    const tc = loadCall(call).testCase;
    expect(tc.turns.map((t) => [t.role, t.audio?.url])).toEqual([["user", join(out, ".._escape_x", "turn_01_input.wav")], ["assistant", join(out, ".._escape_x", "turn_01_response.wav")]]);
  }, 30_000);

  it("an agent that never answers: the turn ends at --turn-timeout-ms with the no-response placeholder, and the run goes on", async () => {
    const a = await agent({ misbehave: "never-answer", vadSilenceMs: 200 });
    const out = join(work, "silent");
    const r = await runReplay(runOptions(oneTurn, out, `${a.url}/realtime`, { drainMs: 0, turnTimeoutMs: 800 }));
    expect(r).toMatchObject({ records: 1, errorRecords: 0 });
    const [record] = readJsonl(join(out, "one.jsonl"));
    const [t] = readJsonl(join(out, "one.timing.jsonl"));
    expect(t.timed_out).toBe(true);
    expect(record.response).toEqual([{ role: "assistant", content: "[No response — no response received]" }]);
    expect(record.metrics).toEqual({ logical_turn_number: 1, audio_response_received: false });
  }, 30_000);

  it("per-file sessions: one session per entry, every turn_number 1; the harness keepalive after each clip", async () => {
    const a = await agent({ delayMs: 50, vadSilenceMs: 200, replies: ["Okay."] });
    const out = join(work, "per-file");
    const r = await runReplay(runOptions(BUNDLED_DATASET, out, `${a.url}/realtime`, { drainMs: 0, grouping: "per-file", concurrency: 4, postClipSilence: "keepalive" }));
    expect(r).toMatchObject({ conversations: 4, records: 4, errorRecords: 0 });
    const records = readJsonl(join(out, "dataset.jsonl"));
    expect(records.map((x) => [x.conversation_id, x.turn_number])).toEqual([
      ["order-help", 1],
      ["order-help", 1],
      ["order-tools", 1],
      ["thanks", 1],
    ]);
    expect(new Set(a.sessions.map((s) => s.connection)).size).toBe(4);
    for (const x of records) expect((x.metrics as Record<string, unknown>).audio_response_received).toBe(true);
    // Keepalive frames are 20 ms every 100 ms: the agent's VAD, which counts audio, needs five times longer to hear 200 ms of silence.
    for (const t of readJsonl(join(out, "dataset.timing.jsonl"))) expect((t.speech_stopped_s as number[]).at(-1)! - (t.send_end_s as number)).toBeGreaterThan(0.5);
  }, 30_000);
});
