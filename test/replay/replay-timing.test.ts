// Done-when: a clip with a 1.5 s pause, against an agent whose VAD answers at the pause, is sent whole and recorded as vad_split (and the harness's drop-the-rest behaviour is available); the user-perceived latency differs from the harness's VAD-mode latency by the agent's end-of-speech window.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameRms, frameSamples, runReplay, speechEndSeconds } from "../../src/index.js";
import { DEFAULT_REFERENCE_AGENT_OPTIONS, startReferenceAgent, type ReferenceAgent } from "../../examples/reference-agent.js";
import { concat, readJsonl, runOptions, speechClip, writeDataset } from "./helpers.js";

const RATE = 24000;
const TOLERANCE_MS = 20;

/**
 * How much earlier (ms) the reference agent's server VAD puts the end of speech of `clip` than the
 * replay does. The agent ends speech after its last 20 ms frame (from the clip's first sample) with
 * RMS ≥ its threshold; the replay's caller_speech_end_s is the engine VAD's (acoustics.md §2.3, a
 * relative threshold on 10 ms hops). Both are right to their frame; on these clips the two differ by
 * one or two hops (10 ms, 20 ms), a fixed offset the agent's answer time inherits.
 */
function agentEndsEarlierMs(clip: Int16Array): number {
  const n = frameSamples(RATE);
  let agentEnd = 0;
  for (let i = 0; i + n <= clip.length; i += n) if (frameRms(clip.subarray(i, i + n)) >= DEFAULT_REFERENCE_AGENT_OPTIONS.vadThresholdRms) agentEnd = i + n;
  return (speechEndSeconds(clip, RATE)! - agentEnd / RATE) * 1000;
}
let work: string;
const agents: ReferenceAgent[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "vox-replay-timing-"));
});

afterAll(async () => {
  for (const a of agents) await a.close();
  for (const a of agents) expect(a.openConnections()).toBe(0);
  rmSync(work, { recursive: true, force: true });
});

async function agent(options: Parameters<typeof startReferenceAgent>[0]): Promise<ReferenceAgent> {
  const a = await startReferenceAgent(options);
  agents.push(a);
  return a;
}

describe("the agent's end-of-speech window", () => {
  it("user-perceived latency − harness VAD-mode latency = the window (300 and 900 ms), user-perceived = the injected delay", async () => {
    const DELAY = 1200;
    const clip = speechClip("Where is my order please?", RATE);
    const dataset = writeDataset(join(work, "window"), "window.jsonl", [{ clip, rate: RATE, wav: "q.wav", line: { Question: "Where is my order please?", conversationID: "w" } }]);
    const runs = await Promise.all(
      [300, 900].map(async (windowMs) => {
        const a = await agent({ delayMs: DELAY, vadSilenceMs: windowMs, replies: ["Okay."] });
        const out = join(work, `out-${windowMs}`);
        await runReplay(runOptions(dataset, out, `${a.url}/realtime`, { drainMs: 0 }));
        return { windowMs, record: readJsonl(join(out, "window.jsonl"))[0], timing: readJsonl(join(out, "window.timing.jsonl"))[0] };
      }),
    );
    for (const { windowMs, record, timing } of runs) {
      const harnessMs = (record.metrics as Record<string, number>).audio_response_latency_seconds * 1000;
      const perceived = timing.user_perceived_latency_ms as number;
      expect(Math.abs(perceived - (DELAY - agentEndsEarlierMs(clip))), `window ${windowMs}: perceived ${perceived}`).toBeLessThanOrEqual(TOLERANCE_MS);
      expect(Math.abs(perceived - harnessMs - (windowMs - agentEndsEarlierMs(clip))), `window ${windowMs}: perceived ${perceived}, harness ${harnessMs}`).toBeLessThanOrEqual(TOLERANCE_MS);
    }
  }, 30_000);
});

describe("a clip with a 1.5 s pause, against an agent whose VAD answers at the pause", () => {
  const first = speechClip("I would like", RATE, 5);
  const second = speechClip("to change my order", RATE, 6);
  const clip = concat(first, new Int16Array(1.5 * RATE), second);
  let dataset: string;
  beforeAll(() => {
    dataset = writeDataset(join(work, "pause"), "pause.jsonl", [{ clip, rate: RATE, wav: "pause.wav", line: { Question: "I would like to change my order", conversationID: "p" } }]);
  });

  it("is sent whole and recorded as vad_split (default)", async () => {
    const a = await agent({ delayMs: 100, vadSilenceMs: 500, replies: ["Okay."] });
    const out = join(work, "out-whole");
    await runReplay(runOptions(dataset, out, `${a.url}/realtime`, { drainMs: 0 }));
    const [record] = readJsonl(join(out, "pause.jsonl"));
    const [t] = readJsonl(join(out, "pause.timing.jsonl"));
    expect(t.vad_split).toBe(true);
    expect(t.vad_split_s as number).toBeLessThan(t.caller_speech_end_s as number);
    expect(t.clip_sent_s).toBe(t.clip_duration_s);
    expect(t.clip_duration_s).toBeCloseTo(clip.length / RATE, 6);
    expect(t.rest_of_clip_dropped).toBe(false);
    // The agent heard both parts (two utterances) and answered both; the record holds both answers.
    const heard = a.records.filter((r) => r.utterance >= 0);
    expect(heard.length).toBe(2);
    expect(t.responses).toBe(2);
    expect(record.response).toEqual([{ role: "assistant", content: "Okay. Okay." }]);
    // The user-perceived latency is measured to the answer after the true end of speech: the agent's
    // 500 ms window from its own end of speech, less the hops by which that end precedes the replay's.
    expect(Math.abs((t.user_perceived_latency_ms as number) - (500 - agentEndsEarlierMs(clip)))).toBeLessThanOrEqual(TOLERANCE_MS);
  }, 30_000);

  it("--vad-split drop-rest reproduces the harness: the turn ends with the first answer and the rest of the clip is never sent", async () => {
    const a = await agent({ delayMs: 100, vadSilenceMs: 500, replies: ["Okay."] });
    const out = join(work, "out-drop");
    await runReplay(runOptions(dataset, out, `${a.url}/realtime`, { drainMs: 0, vadSplit: "drop-rest" }));
    const [t] = readJsonl(join(out, "pause.timing.jsonl"));
    expect(t.vad_split).toBe(true);
    expect(t.rest_of_clip_dropped).toBe(true);
    expect(t.clip_sent_s as number).toBeLessThan((first.length + 1.5 * RATE) / RATE);
    expect(t.responses).toBe(1);
    expect(a.records.filter((r) => r.utterance >= 0).length).toBe(1);
  }, 30_000);
});
