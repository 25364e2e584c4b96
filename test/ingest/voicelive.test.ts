// Voice Live harness datasets (shapes, aliases, path guard, data: URIs) and outputs (latency names, grouping, response audio).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverCalls, loadCall, type IngestOptions } from "../../src/ingest/index.js";
import { decodeDataUri, groundTruthOf, questionOf, resolveDatasetPath } from "../../src/ingest/formats/voicelive-dataset.js";
import { VoxError } from "../../src/model/errors.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { bareId } from "../helpers/ids.js";

const CLIP = join(REPO_ROOT, "fixtures", "sample-archive", "clips", "user-1.wav");
const tmp = mkdtempSync(join(tmpdir(), "vx-vl-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** A loaded call or its error; loosely typed so tests can reach into metadata. */
type Loaded = { id: string; testCase?: any; warnings?: string[]; error?: VoxError };

function loadAll(path: string, options: IngestOptions = {}): Loaded[] {
  return discoverCalls([path]).calls.map((ref) => {
    try {
      return { id: ref.id, ...loadCall(ref, options) };
    } catch (e) {
      return { id: ref.id, error: e as VoxError };
    }
  });
}

describe("Voice Live dataset", () => {
  const ds = join(tmp, "dataset");
  mkdirSync(join(ds, "audio"), { recursive: true });
  copyFileSync(CLIP, join(ds, "audio", "q1.wav"));
  copyFileSync(CLIP, join(ds, "flat.wav"));
  copyFileSync(CLIP, join(tmp, "outside.wav"));
  symlinkSync(join(tmp, "outside.wav"), join(ds, "audio", "link.wav"));
  const b64 = readFileSync(CLIP).toString("base64");

  it("reads legacy rows with every path alias and groups them by conversation", () => {
    const file = join(ds, "legacy.jsonl");
    writeFileSync(
      file,
      jsonl([
        { WavPath: "audio/q1.wav", Question: "Q one", Answer: "A one", conversationID: "c1", system_prompt: "Be brief." },
        { audio: "audio/q1.wav", question: "Q two", answer: ["x", "", "y"], conversation_id: "c2" },
        { audio_path: "some/deep/flat.wav", conversationID: "c1", expected_output: "E" },
        { WavPath: "audio/q1.wav", conversationID: "", Question: "" },
      ]),
    );
    const calls = loadAll(file);
    expect(calls.map((c) => bareId(c.id))).toEqual(["legacy.jsonl#c1", "legacy.jsonl#c2", "legacy.jsonl#default"]);
    const c1 = calls[0];
    expect(c1.testCase.name).toBe("c1");
    expect(c1.testCase.turns.map((t: { role: string; content: string; metadata: Record<string, unknown> }) => [t.role, t.content, t.metadata.ground_truth])).toEqual([
      ["user", "Q one", "A one"],
      ["user", "", "E"],
    ]);
    expect(c1.testCase.turns[1].audio.path).toBe(join(ds, "flat.wav"));
    expect(c1.testCase.metadata.system_prompt).toBe("Be brief.");
  });

  it("refuses a path that leaves the dataset folder, lexically or through a symlink, with a clear error", () => {
    const file = join(ds, "escape.jsonl");
    writeFileSync(file, jsonl([{ WavPath: "../outside.wav", conversationID: "bad" }, { WavPath: "audio/link.wav", conversationID: "link" }, { WavPath: "audio/q1.wav", conversationID: "ok" }]));
    const calls = loadAll(file);
    const bad = calls.find((c) => bareId(c.id).endsWith("#bad"))!;
    expect(bad.error!.code).toBe("PATH_REFUSED");
    expect(bad.error!.message).toMatch(/escape\.jsonl: line 1: WavPath: audio path "\.\.\/outside\.wav" resolves to .*outside\.wav, outside the dataset folder .*dataset; refused/);
    expect(calls.find((c) => bareId(c.id).endsWith("#link"))!.error!.code).toBe("PATH_REFUSED");
    expect(calls.find((c) => bareId(c.id).endsWith("#ok"))).toHaveProperty("testCase");
    expect(() => resolveDatasetPath(ds, "../../etc/passwd", { file: "f", field: "WavPath" })).toThrow(/refused/);
  });

  it("refuses absolute paths outside the dataset folder by default, accepts them as the harness does with allowOutsidePaths, and reports missing files", () => {
    const file = join(ds, "abs.jsonl");
    writeFileSync(file, jsonl([{ WavPath: join(tmp, "outside.wav"), conversationID: "abs" }, { WavPath: "audio/missing.wav", conversationID: "missing" }]));
    const [refused] = loadAll(file);
    expect(refused.error!.code).toBe("PATH_REFUSED");
    expect(refused.error!.message).toMatch(/line 1: WavPath: audio path ".*outside\.wav" resolves to .*outside\.wav, outside the dataset folder .*; refused \(an absolute path; --allow-outside-paths accepts it\)/);
    const [abs, missing] = loadAll(file, { allowOutsidePaths: true });
    expect(abs.testCase).toBeDefined();
    expect(missing.error!.code).toBe("AUDIO_NOT_FOUND");
    expect(missing.error!.message).toMatch(/line 2: WavPath: Audio file not found: .*audio\/missing\.wav/);
  });

  it("reads Foundry media rows: data: URIs (strict base64), http URLs kept remote, top-level audio objects", () => {
    const file = join(ds, "media.jsonl");
    writeFileSync(
      file,
      jsonl([
        { messages: [{ role: "system", content: "Sys" }, { role: "user", content: [{ type: "text", text: "Hello" }, { type: "text", text: "there" }, { type: "input_audio", input_audio: { data: `data:audio/wav;base64,${b64}`, format: "wav" } }] }], expected_output: "Hi", conversationID: "m1" },
        { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "https://example.org/a.wav" } }] }], conversationID: "m2" },
        { audio: { type: "input_audio", input_audio: { data: `data:;base64,${b64}` } }, Question: "Q", conversationID: "m3" },
        { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: `data:audio/wav;base64,${b64.slice(0, 10)}\n${b64.slice(10)}` } }] }], conversationID: "m4" },
      ]),
    );
    const calls = loadAll(file);
    const m1 = calls[0].testCase!;
    expect(m1.turns[0].content).toBe("Hello there");
    expect(m1.turns[0].audio.hasBytes).toBe(true);
    expect(m1.metadata.system_prompt).toBe("Sys");
    expect(m1.turns[0].metadata.ground_truth).toBe("Hi");
    expect(calls[1].testCase!.turns[0].audio.url).toBe("https://example.org/a.wav");
    expect(calls[2].testCase!.turns[0].audio.hasBytes).toBe(true);
    expect(calls[3].error!.message).toMatch(/Failed to resolve media audio for turn 1: the data: URI is not strict base64/);
  });

  it("implements the alias rules", () => {
    expect(groundTruthOf({ Answer: "", answer: [], expected_output: ["a", null, 3] })).toBe("a OR 3");
    expect(groundTruthOf({ Answer: 42 })).toBe(42);
    expect(questionOf({ messages: [{ role: "user", content: [{ type: "text", text: "" }] }, { role: "user", content: [{ type: "text", text: "second" }] }] })).toBe("second");
    expect(decodeDataUri("data:x;base64,QUJD")).toEqual(new Uint8Array([65, 66, 67]));
    expect(decodeDataUri("data:x;base64,QUJ")).toBeNull();
  });
});

describe("Voice Live output", () => {
  const out = join(tmp, "out");
  mkdirSync(join(out, "conv-a"), { recursive: true });
  mkdirSync(join(out, "legacy"), { recursive: true });
  copyFileSync(CLIP, join(out, "conv-a", "turn_01_response.wav"));
  copyFileSync(CLIP, join(out, "legacy", "legacy_turn_02_response.wav"));
  const record = (conversation: string | undefined, turn: number, extra: Record<string, unknown> = {}) => ({
    query: [{ role: "system", content: "S" }, { role: "user", content: [{ type: "text", text: `user ${turn}` }] }],
    response: [{ role: "assistant", content: `reply ${turn}` }],
    transcript: `heard ${turn}`,
    was_truncated: false,
    metrics: { transcription_latency_seconds: 0.2, text_response_latency_seconds: 0.9, audio_response_latency_seconds: 1.25, logical_turn_number: turn, audio_response_received: true },
    ...(conversation ? { conversation_id: conversation, turn_number: turn, source_file: CLIP } : {}),
    ...extra,
  });

  it("groups records per conversation in turn order with response audio, latencies and placeholders", () => {
    const file = join(out, "20260101_000000_ds.jsonl");
    writeFileSync(
      file,
      jsonl([
        record("conv-a", 2, { response: [{ role: "assistant", content: "[No response — barge-in truncated before response]" }], was_truncated: true }),
        record("conv-a", 1),
        { conversation_id: "conv-a", source_file: "/nowhere/x.wav", error: "Failed to resolve media audio for turn 3", turn_number: 3 },
        record("conv-b", 1),
      ]),
    );
    const calls = loadAll(file);
    expect(calls.map((c) => bareId(c.id))).toEqual(["20260101_000000_ds.jsonl#conv-a", "20260101_000000_ds.jsonl#conv-b"]);
    const turns = calls[0].testCase.turns;
    expect(turns.map((t: { role: string; content: string }) => [t.role, t.content])).toEqual([
      ["user", "user 1"],
      ["assistant", "reply 1"],
      ["user", "user 2"],
      ["assistant", ""],
      ["user", ""],
    ]);
    expect(turns[1].latency_ms).toBe(1250);
    expect(turns[1].metadata.latency_anchor).toBe("speech_stopped_receipt");
    expect(turns[1].metadata.transcription_latency_seconds).toBe(0.2);
    expect(turns[1].audio!.path).toBe(join(out, "conv-a", "turn_01_response.wav"));
    expect(turns[0].audio!.path).toBe(CLIP);
    expect(turns[3].audio).toBeNull();
    expect(turns[3].interrupted).toBe(true);
    expect(turns[4].metadata.harness_error).toMatch(/Failed to resolve/);
    expect(calls[0].warnings!.join(" ")).toMatch(/\/nowhere\/x\.wav not found/);
  });

  it("reads the legacy schema (resonse typo, input_text parts, older response names)", () => {
    const file = join(out, "legacy.jsonl");
    const legacy = (turn: number) => ({
      query: [{ role: "user", createdAt: "2025-11-26T16:53:40Z", content: [{ type: "input_text", text: `q${turn}` }] }],
      response: [{ role: "assistant", run_id: "r", content: [{ type: "text", text: `a${turn}` }] }],
      metrics: { "turn-audio-resonse-latency-in-seconds": 0.5 * turn, "turn-text-resonse-latency-in-seconds": 0.3, logical_turn_number: turn, inputs_in_turn: 1, audio_response_received: true },
      tool_calls: [],
      tool_definitions: [],
      ground_truth: "g",
    });
    writeFileSync(file, jsonl([legacy(2), legacy(1)]));
    const [call] = loadAll(file);
    expect(bareId(call.id)).toBe("legacy.jsonl#default");
    expect(call.testCase.turns.map((t: { content: string }) => t.content)).toEqual(["q1", "a1", "q2", "a2"]);
    expect(call.testCase.turns[3].latency_ms).toBe(1000);
    expect(call.testCase.turns[3].metadata.text_response_latency_seconds).toBe(0.3);
  });
});
